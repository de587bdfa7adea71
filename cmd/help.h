/* help.h - help text: option lists and per-command help. */
#ifndef XPSTAT_HELP_H
#define XPSTAT_HELP_H

#include "cmd.h"

#include <stdio.h>

/* Words of text from column col, wrapped at 80 columns onto lines indented by indent. */
void xp_print_wrapped(FILE *f, const char *text, size_t col, size_t indent);
/* The options of o, or only those named in the space-separated list only. */
void xp_print_opts(FILE *f, const struct xp_opt *o, const char *only);
/* `xpstat CMD --help`: usage, the command's options, the global options that apply, tables, examples. */
void xp_print_cmd_help(FILE *f, const struct xp_cmd *c, const struct xp_opt *globals);

#endif
