/* test_job.c -- the job queue against a temp sysfs tree and the fake fio script: success,
 * params applied and restored, failure, cancel, refused specs, and crash recovery. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "agent.h"
#include "job.h"
#include "store.h"
#include "timeutil.h"

struct fx {
	char *root;
	char db[512];
	char fio[512];
	struct agent a;
};

static void audit_cb(void *cls, const struct tune_change *c)
{
	struct agent *a = cls;

	store_change_add(a->store, c, time_now_s());
}

static void agent_up(struct fx *f)
{
	struct err e;

	assert_int_equal(store_open(&f->a.store, f->db, &e), 0);
	tune_init(&f->a.tune, &f->a.fs, audit_cb, &f->a);
	f->a.sessions.tune = &f->a.tune;
	f->a.sessions.store = f->a.store;
	assert_int_equal(jobq_start(&f->a.jobs, &f->a, &e), 0);
}

static void agent_down(struct fx *f)
{
	jobq_stop(f->a.jobs);
	f->a.jobs = NULL;
	store_close(f->a.store);
	f->a.store = NULL;
	tune_release(&f->a.tune);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->root = tu_tmpdir();
	tu_fake_device(f->root, "loop0", 0);
	snprintf(f->db, sizeof(f->db), "%s/agent.db", f->root);
	snprintf(f->fio, sizeof(f->fio), "%s/fake-fio.sh", FT_FIXTURES);
	f->a.cfg.fio_path = f->fio;
	f->a.cfg.allow_devices[0] = "loop0";
	f->a.cfg.n_allow_devices = 1;
	f->a.fs.root = f->root;
	f->a.fs.allow_devices = f->a.cfg.allow_devices;
	f->a.fs.n_allow_devices = 1;
	unsetenv("FAKE_FIO_FAIL");
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	agent_up(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	agent_down(f);
	tu_rmrf(f->root);
	free(f->root);
	free(f);
	return 0;
}

static int64_t submit(struct fx *f, const char *body_json, int want_rc, struct err *e)
{
	json_t *body = json_loads(body_json, 0, NULL);
	int64_t id = 0;

	assert_non_null(body);
	err_clear(e);
	assert_int_equal(job_submit(f->a.jobs, body, &id, e), want_rc);
	json_decref(body);
	return id;
}

/* Poll the store until job id reaches state (or 10 s pass). */
static void wait_state(struct fx *f, int64_t id, const char *state, struct job_rec *out)
{
	struct err e;
	int i;

	for (i = 0; i < 200; i++) {
		assert_int_equal(store_job_get(f->a.store, id, out, &e), 0);
		if (!strcmp(out->state, state))
			return;
		store_job_rec_release(out);
		usleep(50 * 1000);
	}
	fail_msg("job %lld never reached %s", (long long)id, state);
}

#define FIO_OK "\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4M\",\"runtime_s\":1,\"time_based\":true}"

static void test_job_succeeds(void **state)
{
	struct fx *f = *state;
	struct pass_rec *passes;
	struct job_rec j;
	struct err e;
	int64_t id;
	int n;

	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":2,"
	            "\"params\":{\"nr_requests\":128},\"labels\":{\"strip_size\":\"256k\"}}",
	            0, &e);
	assert_true(id > 0);
	wait_state(f, id, "running", &j);
	store_job_rec_release(&j);
	wait_state(f, id, "succeeded", &j);
	assert_int_equal(j.loops_done, 2);
	assert_non_null(strstr(j.params, "\"nr_requests\":128"));
	assert_non_null(strstr(j.labels, "strip_size"));
	assert_false(j.has_error);
	store_job_rec_release(&j);
	/* restored after the last loop */
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
	assert_int_equal(store_job_passes(f->a.store, id, &passes, &n, &e), 0);
	assert_int_equal(n, 2);
	/* the fixture's write bandwidth, in MiB/s, and no read metrics */
	assert_non_null(strstr(passes[0].metrics, "\"write.bw_mib\""));
	assert_null(strstr(passes[0].metrics, "\"read."));
	store_passes_free(passes, n);
}

static void test_job_fails_and_restores(void **state)
{
	struct fx *f = *state;
	struct job_rec j;
	struct err e;
	int64_t id;

	setenv("FAKE_FIO_FAIL", "1", 1);
	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":3,"
	            "\"params\":{\"nr_requests\":256}}",
	            0, &e);
	wait_state(f, id, "failed", &j);
	assert_true(j.has_error);
	assert_string_equal(j.error_code, "engine_failed");
	assert_int_equal(j.loops_done, 0);
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
	unsetenv("FAKE_FIO_FAIL");
}

static void test_cancel(void **state)
{
	struct fx *f = *state;
	struct job_rec j;
	struct err e;
	int64_t id, queued;

	setenv("FAKE_FIO_SLEEP_S", "30", 1);
	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":2,"
	            "\"params\":{\"nr_requests\":32}}",
	            0, &e);
	queued = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	wait_state(f, id, "running", &j);
	store_job_rec_release(&j);
	usleep(300 * 1000);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "32");
	/* a queued job is dropped without running */
	assert_int_equal(job_cancel(f->a.jobs, queued, &e), 0);
	wait_state(f, queued, "cancelled", &j);
	store_job_rec_release(&j);
	/* the running one is stopped, its params restored */
	assert_int_equal(job_cancel(f->a.jobs, id, &e), 0);
	wait_state(f, id, "cancelled", &j);
	assert_int_equal(j.loops_done, 0);
	assert_string_equal(j.error_code, "cancelled");
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
	assert_int_equal(job_cancel(f->a.jobs, id, &e), -EBUSY);
	assert_string_equal(e.code, "conflict");
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
}

static void test_refused_specs(void **state)
{
	struct fx *f = *state;
	struct job_rec *list;
	struct err e;
	int n;

	tu_fake_device(f->root, "vda", 0);
	submit(f, "{\"engine\":\"fio\"," FIO_OK "}", -EINVAL, &e);
	assert_non_null(strstr(e.msg, "device"));
	submit(f, "{\"device\":\"sdq\",\"engine\":\"fio\"," FIO_OK "}", -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"nope\"}", -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"iodepth\":0}}", -EINVAL, &e);
	assert_non_null(strstr(e.msg, "fio.iodepth"));
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":0}", -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"labels\":{\"a b\":\"x\"}}",
	       -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"labels\":{\"k\":7}}",
	       -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"bonnie\",\"bonnie\":{\"size_mb\":64}}",
	       -EINVAL, &e);
	assert_non_null(strstr(e.msg, "directory"));
	submit(f, "{\"device\":\"loop0\",\"directory\":\"/tmp\",\"engine\":\"fio\"," FIO_OK "}",
	       -EPERM, &e);
	assert_string_equal(e.code, "dir_not_allowed");
	submit(f, "{\"device\":\"vda\",\"engine\":\"fio\"," FIO_OK "}", -EBUSY, &e);
	assert_string_equal(e.code, "device_refused");
	submit(f,
	       "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	       ",\"params\":{\"scheduler\":\"cfq\"}}",
	       -EINVAL, &e);
	assert_string_equal(e.code, "invalid_value");
	/* a raw-device job on a mounted device */
	tu_write(f->root, "proc/self/mounts", "/dev/loop0 /mnt ext4 rw 0 0\n", 0444);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", -EBUSY, &e);
	assert_non_null(strstr(e.msg, "mounted"));
	assert_int_equal(store_jobs_list(f->a.store, NULL, 100, &list, &n, &e), 0);
	assert_int_equal(n, 0);
	store_jobs_free(list, n);
}

static void test_recovery_after_crash(void **state)
{
	struct fx *f = *state;
	struct job_rec j, claimed;
	struct err e;
	int64_t id;

	/* Stop the worker, then play a dead agent's part: a job left running with its
	 * params applied and its restore point saved. */
	jobq_stop(f->a.jobs);
	f->a.jobs = NULL;
	memset(&j, 0, sizeof(j));
	snprintf(j.device, sizeof(j.device), "loop0");
	snprintf(j.engine, sizeof(j.engine), "fio");
	j.spec = "{\"device\":\"loop0\",\"engine\":\"fio\"}";
	j.labels = "{}";
	j.loops = 3;
	j.created_at = time_now_s();
	assert_int_equal(store_job_insert(f->a.store, &j, NULL, 0, &e), 0);
	id = j.id;
	assert_int_equal(store_job_claim_next(f->a.store, time_now_s(), &claimed, &e), 0);
	assert_int_equal(claimed.id, id);
	store_job_rec_release(&claimed);
	assert_int_equal(store_job_set_restore(f->a.store, id, "{\"nr_requests\":\"64\"}", &e), 0);
	tu_write(f->root, "sys/block/loop0/queue/nr_requests", "999", 0644);
	agent_down(f);
	agent_up(f);
	wait_state(f, id, "interrupted", &j);
	assert_string_equal(j.error_code, "interrupted");
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_job_succeeds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_fails_and_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_specs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recovery_after_crash, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
