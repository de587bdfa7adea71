/* out_report.h - writing a report (several results) as text, one JSON document, or a directory of CSV files. */
#ifndef XPSTAT_OUT_REPORT_H
#define XPSTAT_OUT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "out.h"
#include "formats/core/xperr.h"
#include "formats/model/report.h"

/* The verdict, the table of every analysis' verdict, then each analysis under "== COMMAND ==". */
int xp_report_write_text(const struct xp_report *rep, const char *verdict, FILE *f, const struct xp_out_opts *o,
			 struct xp_err *e);
/* One document: schema_version, command "report", verdict, inputs, and each analysis' own document under
 * "reports" (built on THREADS threads; the bytes do not depend on it). */
int xp_report_write_json(const struct xp_report *rep, const char *verdict, char *const *inputs, size_t n_inputs,
			 FILE *f);
/* Every table as DIR/<key>-<table>.csv (DIR is made when missing), each file atomically. Returns 0, or
 * an xp_exit status with *E set (a directory or file that cannot be made or written). */
int xp_report_write_csv_dir(const struct xp_report *rep, const char *dir, const struct xp_out_opts *o,
			    struct xp_err *e);
/* The one table NAME ("<key>-<table>") as CSV; a usage error in *E listing the names when there is none. */
int xp_report_write_csv_table(const struct xp_report *rep, const char *name, FILE *f, const struct xp_out_opts *o,
			      struct xp_err *e);
/* Every "<key>-<table>" name, malloc'd (the caller frees each and the array). */
size_t xp_report_csv_names(const struct xp_report *rep, char ***names);

#endif
