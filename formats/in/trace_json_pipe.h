/* trace_json_pipe.h - the lexer thread: the document lexed on a thread of its own while the caller's commits. */
#ifndef XPSTAT_TRACE_JSON_PIPE_H
#define XPSTAT_TRACE_JSON_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "trace_json_doc.h"

/* Lex w's text on a thread of our own while this one commits into w->stage; false when the
 * thread cannot start (nothing was read). *rc: 0, or -1 with the error set; *decoded: the
 * bytes of text read. */
bool tj_pipe_run(struct tj_window *w, int *rc, uint64_t *decoded);

#endif
