/* suggest.h - "did you mean": the names closest to a mistyped one (commands, options, runs, hosts, ops). */
#ifndef XPSTAT_SUGGEST_H
#define XPSTAT_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/* Edit distance (insert, delete, substitute, swap two neighbours) between a and
 * b, ignoring case and treating '-', '_' and ':' alike; stops counting at cap. */
size_t xp_name_distance(const char *a, const char *b, size_t cap);

/* Indexes of up to max_out names closest to want, best first (ties in list
 * order) into out; returns how many. Only plausible typos (a small distance,
 * or want a prefix of the name) unless any is set, then simply the closest. */
size_t xp_closest(const char *want, const char *const *names, size_t n, bool any, size_t *out, size_t max_out);

/* "; did you mean 'x'?" / "; did you mean 'x', 'y' or 'z'?" for the closest
 * names into buf (empty when none is plausible and any is false). */
void xp_did_you_mean(char *buf, size_t size, const char *want, const char *const *names, size_t n, bool any,
		     size_t max_out);

#endif
