/* agenttest.h -- a whole agent for the tests of the modules above the store (test_job,
 * test_api): agent_init() on a temp sysfs tree with loop0 allowlisted and the fake fio; and a
 * bare job queue on such a tree, with the test's clocks (queue_fx). */
#ifndef FT_AGENTTEST_H
#define FT_AGENTTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/sysfs.h"
#include "device/tune.h"
#include "queue/job.h"
#include "state/agent.h"
#include "store/store.h"
#include "testutil.h"

struct agent_fx {
	char *root; /* the temp tree: sys/block/loop0/..., agent.db, token-less state dir */
	char fio[512];
	struct agent_config cfg;
	struct agent a;
};

static inline void agent_fx_up(struct agent_fx *f)
{
	struct err e;

	err_clear(&e);
	if (agent_init(&f->a, &f->cfg, &e))
		fail_msg("agent_init: %s", e.msg);
}

static inline void agent_fx_down(struct agent_fx *f)
{
	agent_release(&f->a);
}

/* A fresh tree and a running agent; fake fio passes take 0.2 s. */
static inline struct agent_fx *agent_fx_new(void)
{
	struct agent_fx *f = calloc(1, sizeof(*f));

	f->root = tu_tmpdir();
	tu_fake_device(f->root, "loop0", 0);
	snprintf(f->fio, sizeof(f->fio), "%s/fake-fio.sh", FT_FIXTURES);
	f->cfg.node_name = "test";
	f->cfg.state_dir = f->root;
	f->cfg.sysfs_root = f->root;
	f->cfg.fio_path = f->fio;
	f->cfg.waiter_exe = FT_AGENT_EXE; /* what the agent's main resolves /proc/self/exe to */
	f->cfg.allow_devices[0] = "loop0";
	f->cfg.n_allow_devices = 1;
	unsetenv("FAKE_FIO_FAIL");
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	agent_fx_up(f);
	return f;
}

static inline void agent_fx_free(struct agent_fx *f)
{
	agent_fx_down(f);
	tu_rmrf(f->root);
	free(f->root);
	free(f);
}

/* How many jobs the database holds. */
static inline int agent_fx_jobs(struct agent_fx *f)
{
	struct job_rec *list;
	struct err e;
	int n;

	assert_int_equal(job_list(f->a.jobs, NULL, 500, true, &list, &n, &e), 0);
	store_jobs_free(list, n);
	return n;
}

/* Poll q every 25 ms until job id is in state (out then holds its record); fail once
 * timeout_s have passed, or at once when the job ended in another state (naming it and its
 * error). */
static inline void queue_wait_state(struct jobq *q, int64_t id, const char *state, double timeout_s,
                                    struct job_rec *out)
{
	struct err e;
	int i, st;

	for (i = 0; i < (int)(timeout_s * 40); i++) {
		assert_int_equal(job_get(q, id, out, &e), 0);
		if (!strcmp(out->state, state))
			return;
		st = job_state_parse(out->state);
		if (st >= 0 && job_state_final((enum job_state)st))
			fail_msg("job %lld ended %s, not %s: %s %s", (long long)id, out->state,
			         state, out->error_code, out->error_message);
		store_job_rec_release(out);
		usleep(25 * 1000);
	}
	fail_msg("job %lld never reached %s", (long long)id, state);
}

/* A job queue alone (no agent around it) on a temp tree with loop0 allowlisted and the fake
 * fio, its processes kept as plain process groups (CONTAIN_PROC). */
struct queue_fx {
	char *root;
	char db[600], fio[512];
	const char *allow[1];
	struct sysfs fs;
	struct store *store;
	struct tune tune;
	struct jobq *q;
};

/* Start f's queue; now_s and mono_s the queue's clocks (NULL: the real ones), waiter_exe the
 * prerun waiter of jobs spawned before their moment (NULL: none). */
static inline void queue_fx_start(struct queue_fx *f, double (*now_s)(void), double (*mono_s)(void),
                                  const char *waiter_exe)
{
	struct jobq_env env = { 0 };
	struct err e;

	memset(f, 0, sizeof(*f));
	f->root = tu_tmpdir();
	f->allow[0] = "loop0";
	f->fs.root = f->root;
	f->fs.allow_devices = f->allow;
	f->fs.n_allow_devices = 1;
	tu_fake_device(f->root, "loop0", 0);
	snprintf(f->db, sizeof(f->db), "%s/agent.db", f->root);
	snprintf(f->fio, sizeof(f->fio), "%s/fake-fio.sh", FT_FIXTURES);
	err_clear(&e);
	assert_int_equal(store_open(&f->store, f->db, &e), 0);
	tune_init(&f->tune, &f->fs, NULL);
	env.store = f->store;
	env.tune = &f->tune;
	env.fs = &f->fs;
	env.fio_path = f->fio;
	env.state_dir = f->root;
	env.contain = CONTAIN_PROC;
	env.now_s = now_s;
	env.mono_s = mono_s;
	env.waiter_exe = waiter_exe;
	if (jobq_start(&f->q, &env, &e))
		fail_msg("jobq_start: %s", e.msg);
}

static inline void queue_fx_stop(struct queue_fx *f)
{
	jobq_stop(f->q);
	tune_release(&f->tune);
	store_close(f->store);
	tu_rmrf(f->root);
	free(f->root);
}

#endif
