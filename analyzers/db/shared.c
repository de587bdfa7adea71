/* shared.c - inputs that several analyses of one report read (the input host op DB, the tf.data model), built once on first use. */
#include "shared.h"
#include "hostdb.h"
#include "opdb.h"
#include "opdb_state.h"
#include "tfdata.h"
#include "tfdata_state.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/core/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * `report` runs its analyses side by side; overview, input-pipeline and
 * tf-data each need the same host op DB and tf.data model. The first thread
 * to ask builds one; a thread asking meanwhile waits on that slot's lock
 * and gets the same object. Readers never change them.
 */

struct xp_shared {
	const struct xp_capture *c;     /* NULL: read back from saved state (combine), nothing built */
	pthread_mutex_t host_db_lock, tfdata_lock, device_tf_lock;
	struct xp_op_db *host_db;
	struct xp_op_db *device_tf;     /* xp_shared_warm_device_tf's, until taken */
	struct xp_tfdata *tfdata;
	struct xp_run_env *env;         /* combine: each host's, saved */
	uint32_t n_env;
};

struct xp_shared *xp_shared_new(const struct xp_capture *c)
{
	struct xp_shared *s = xcalloc(1, sizeof *s);
	s->c = c;
	pthread_mutex_init(&s->host_db_lock, NULL);
	pthread_mutex_init(&s->tfdata_lock, NULL);
	pthread_mutex_init(&s->device_tf_lock, NULL);
	return s;
}

void xp_shared_free(struct xp_shared *s)
{
	if (!s)
		return;
	xp_op_db_free(s->host_db);
	xp_op_db_free(s->device_tf);
	xp_tfdata_free(s->tfdata);
	free(s->env);
	pthread_mutex_destroy(&s->host_db_lock);
	pthread_mutex_destroy(&s->tfdata_lock);
	pthread_mutex_destroy(&s->device_tf_lock);
	free(s);
}

const struct xp_op_db *xp_shared_input_host_db(struct xp_shared *s)
{
	pthread_mutex_lock(&s->host_db_lock);
	if (!s->host_db && !s->c)
		xp_die("internal: the input host op DB was asked of saved state that does not hold it");
	if (!s->host_db)
		s->host_db = xp_input_host_db(s->c);
	pthread_mutex_unlock(&s->host_db_lock);
	return s->host_db;
}

const struct xp_tfdata *xp_shared_tfdata(struct xp_shared *s)
{
	pthread_mutex_lock(&s->tfdata_lock);
	if (!s->tfdata && !s->c)
		xp_die("internal: the tf.data model was asked of saved state that does not hold it");
	if (!s->tfdata)
		s->tfdata = xp_tfdata_build(s->c);
	pthread_mutex_unlock(&s->tfdata_lock);
	return s->tfdata;
}

void xp_shared_warm_inputs(struct xp_shared *s, bool xprof_compat)
{
	(void)xprof_compat;     /* neither depends on it */
	xp_shared_input_host_db(s);
	xp_shared_tfdata(s);
}

const struct xp_capture *xp_shared_capture(const struct xp_shared *s)
{
	return s->c;
}

void xp_shared_warm_device_tf(struct xp_shared *s, bool xprof_compat)
{
	struct xp_op_db_opts o = {.xprof_compat = xprof_compat};
	struct xp_op_db *db = xp_op_db_tf_device(s->c, &o);
	xp_op_db_sort(db);
	pthread_mutex_lock(&s->device_tf_lock);
	xp_op_db_free(s->device_tf);
	s->device_tf = db;
	pthread_mutex_unlock(&s->device_tf_lock);
}

struct xp_op_db *xp_shared_take_device_tf(struct xp_shared *s)
{
	pthread_mutex_lock(&s->device_tf_lock);
	struct xp_op_db *db = s->device_tf;
	s->device_tf = NULL;
	pthread_mutex_unlock(&s->device_tf_lock);
	return db;
}

const struct xp_op_db *xp_use_input_host_db(const struct xp_prep *p, struct xp_op_db **own)
{
	*own = NULL;
	if (p->shared)
		return xp_shared_input_host_db(p->shared);
	return *own = xp_input_host_db(p->cap);
}

const struct xp_tfdata *xp_use_tfdata(const struct xp_prep *p, struct xp_tfdata **own)
{
	*own = NULL;
	if (p->shared)
		return xp_shared_tfdata(p->shared);
	return *own = xp_tfdata_build(p->cap);
}

static bool listed(const char *const *tables, const char *name)
{
	for (; tables && *tables; tables++)
		if (!strcmp(*tables, name))
			return true;
	return false;
}

/* The input host op DB as xp_input_host_db builds it of the hosts' captures: theirs summed in host order, sorted. */
static struct xp_op_db *host_db_from_state(const struct xp_state_host *hosts, uint32_t n, struct xp_err *e)
{
	struct xp_op_db *all = xp_op_db_empty();
	for (uint32_t h = 0; h < n; h++) {
		struct xp_op_db *one = xp_op_db_from_state(&hosts[h], "input_host");
		if (!one) {
			xp_err_set(e, XP_EXIT_BAD_INPUT, hosts[h].path, "the host op state of host %s does not read back: "
				   "not a report as this xpstat writes it", hosts[h].name);
			xp_op_db_free(all);
			return NULL;
		}
		all = xp_op_db_absorb(all, one);
	}
	xp_op_db_sort(all);
	return all;
}

static bool env_from_state(struct xp_shared *s, const struct xp_state_host *hosts, uint32_t n, struct xp_err *e)
{
	s->env = xcalloc(n ? n : 1, sizeof *s->env);
	s->n_env = n;
	for (uint32_t h = 0; h < n; h++)
		if (!xp_run_env_from_state(&hosts[h], &s->env[h])) {
			xp_err_set(e, XP_EXIT_BAD_INPUT, hosts[h].path, "the run environment of host %s does not read back: "
				   "not a report as this xpstat writes it", hosts[h].name);
			return false;
		}
	return true;
}

struct xp_shared *xp_shared_from_state(const struct xp_state_host *hosts, uint32_t n, const char *const *tables,
				       struct xp_err *e)
{
	struct xp_shared *s = xp_shared_new(NULL);
	bool ok = true;
	if (listed(tables, "op_dbs"))
		ok = (s->host_db = host_db_from_state(hosts, n, e)) != NULL;
	if (ok && listed(tables, "tfdata_hosts"))
		ok = (s->tfdata = xp_tfdata_from_state(hosts, n, e)) != NULL;
	if (ok && listed(tables, "run_env"))
		ok = env_from_state(s, hosts, n, e);
	if (ok)
		return s;
	xp_shared_free(s);
	return NULL;
}

void xp_use_run_env(const struct xp_prep *p, uint32_t h, struct xp_run_env *e)
{
	if (p->shared && !p->shared->c) {
		if (h >= p->shared->n_env)
			xp_die("internal: a run environment was asked of saved state that does not hold it");
		*e = p->shared->env[h];
		return;
	}
	xp_run_env_host(p->cap, p->hosts[h].host, e);
}
