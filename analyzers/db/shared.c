/* shared.c - inputs that several analyses of one report read (the input host op DB, the tf.data model), built once on first use. */
#include "shared.h"
#include "hostdb.h"
#include "opdb.h"
#include "tfdata.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/core/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

/*
 * `report` runs its analyses side by side; overview, input-pipeline and
 * tf-data each need the same host op DB and tf.data model. The first thread
 * to ask builds one; a thread asking meanwhile waits on that slot's lock
 * and gets the same object. Readers never change them.
 */

struct xp_shared {
	const struct xp_capture *c;
	pthread_mutex_t host_db_lock, tfdata_lock;
	struct xp_op_db *host_db;
	struct xp_tfdata *tfdata;
};

struct xp_shared *xp_shared_new(const struct xp_capture *c)
{
	struct xp_shared *s = xcalloc(1, sizeof *s);
	s->c = c;
	pthread_mutex_init(&s->host_db_lock, NULL);
	pthread_mutex_init(&s->tfdata_lock, NULL);
	return s;
}

void xp_shared_free(struct xp_shared *s)
{
	if (!s)
		return;
	xp_op_db_free(s->host_db);
	xp_tfdata_free(s->tfdata);
	pthread_mutex_destroy(&s->host_db_lock);
	pthread_mutex_destroy(&s->tfdata_lock);
	free(s);
}

const struct xp_op_db *xp_shared_input_host_db(struct xp_shared *s)
{
	pthread_mutex_lock(&s->host_db_lock);
	if (!s->host_db)
		s->host_db = xp_input_host_db(s->c);
	pthread_mutex_unlock(&s->host_db_lock);
	return s->host_db;
}

const struct xp_tfdata *xp_shared_tfdata(struct xp_shared *s)
{
	pthread_mutex_lock(&s->tfdata_lock);
	if (!s->tfdata)
		s->tfdata = xp_tfdata_build(s->c);
	pthread_mutex_unlock(&s->tfdata_lock);
	return s->tfdata;
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
