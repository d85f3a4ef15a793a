/* test_session.c -- sessions: snapshot, restore on close, on expiry and after a restart; the audit
 * log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "session.h"
#include "store.h"

struct fx {
	char *root;
	char db[512];
	const char *allow[1];
	struct sysfs fs;
	struct tune t;
	struct store *store;
	struct session_mgr m;
};

static void audit_cb(void *cls, const struct tune_change *c)
{
	struct fx *f = cls;

	store_change_add(f->store, c, 1000.0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct err e;

	f->root = tu_tmpdir();
	tu_fake_device(f->root, "loop0", 0);
	snprintf(f->db, sizeof(f->db), "%s/agent.db", f->root);
	assert_int_equal(store_open(&f->store, f->db, &e), 0);
	f->allow[0] = "loop0";
	f->fs.root = f->root;
	f->fs.allow_devices = f->allow;
	f->fs.n_allow_devices = 1;
	tune_init(&f->t, &f->fs, audit_cb, f);
	f->m.tune = &f->t;
	f->m.store = f->store;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	store_close(f->store);
	tune_release(&f->t);
	tu_rmrf(f->root);
	free(f->root);
	free(f);
	return 0;
}

static void mistune(struct fx *f)
{
	struct tune_item it[2];
	bool rb;
	struct err e;

	memset(it, 0, sizeof(it));
	snprintf(it[0].name, sizeof(it[0].name), "scheduler");
	snprintf(it[0].requested, sizeof(it[0].requested), "none");
	snprintf(it[1].name, sizeof(it[1].name), "nr_requests");
	snprintf(it[1].requested, sizeof(it[1].requested), "32");
	assert_int_equal(tune_apply(&f->t, "loop0", it, 2, "test", &rb, &e), 0);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "32");
}

static void assert_restored(struct fx *f)
{
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/scheduler"), "mq-deadline");
}

static void test_schema(void **state)
{
	struct fx *f = *state;

	assert_true(store_schema_version(f->store) >= 2);
}

static void test_close_restores(void **state)
{
	struct fx *f = *state;
	struct session_rec s, end;
	struct err e;

	assert_int_equal(session_open(&f->m, "loop0", 60, 1000.0, &s, &e), 0);
	assert_true(s.id > 0);
	assert_true(s.expires_at == 1060.0);
	mistune(f);
	assert_int_equal(session_end(&f->m, s.id, true, "closed", 1010.0, &end, &e), 0);
	assert_string_equal(end.state, "restored");
	assert_string_equal(end.end_reason, "closed");
	assert_non_null(strstr(end.restore_outcome, "ok"));
	assert_restored(f);
	/* ending twice is a conflict */
	assert_int_equal(session_end(&f->m, s.id, true, "closed", 1011.0, &end, &e), -EBUSY);
	assert_string_equal(e.code, "conflict");
}

static void test_close_without_restore(void **state)
{
	struct fx *f = *state;
	struct session_rec s, end;
	struct err e;

	assert_int_equal(session_open(&f->m, "loop0", 60, 1000.0, &s, &e), 0);
	mistune(f);
	assert_int_equal(session_end(&f->m, s.id, false, "closed", 1010.0, &end, &e), 0);
	assert_string_equal(end.state, "closed");
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "32");
}

static void test_one_open_session_per_device(void **state)
{
	struct fx *f = *state;
	struct session_rec s, s2;
	struct err e;

	assert_int_equal(session_open(&f->m, "loop0", 60, 1000.0, &s, &e), 0);
	assert_int_equal(session_open(&f->m, "loop0", 60, 1000.0, &s2, &e), -EBUSY);
	assert_int_equal(session_open(&f->m, "loop0", 0, 1000.0, &s2, &e), -EINVAL);
}

static void test_expiry_and_renew(void **state)
{
	struct fx *f = *state;
	struct session_rec s, r, got;
	struct err e;

	assert_int_equal(session_open(&f->m, "loop0", 10, 1000.0, &s, &e), 0);
	mistune(f);
	assert_int_equal(session_expire_due(&f->m, 1005.0), 0);
	assert_int_equal(session_renew(&f->m, s.id, 1008.0, &r, &e), 0);
	assert_true(r.expires_at == 1018.0);
	assert_int_equal(session_expire_due(&f->m, 1012.0), 0); /* renewed past 1010 */
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "32");
	assert_int_equal(session_expire_due(&f->m, 1018.5), 1);
	assert_restored(f);
	assert_int_equal(store_session_get(f->store, s.id, &got, &e), 0);
	assert_string_equal(got.state, "restored");
	assert_string_equal(got.end_reason, "expired");
	assert_true(got.ended_at == 1018.5);
	assert_int_equal(session_renew(&f->m, s.id, 1020.0, &r, &e), -EBUSY);
}

static void test_recover_after_restart(void **state)
{
	struct fx *f = *state;
	struct session_rec s, got;
	struct change_rec *ch;
	int n, i, restored = 0;
	struct err e;

	assert_int_equal(session_open(&f->m, "loop0", 600, 1000.0, &s, &e), 0);
	mistune(f);
	/* the agent dies; a new one opens the same database */
	store_close(f->store);
	assert_int_equal(store_open(&f->store, f->db, &e), 0);
	f->m.store = f->store;
	assert_int_equal(session_end_all(&f->m, 1001.0, "agent_restart", NULL), 1);
	assert_restored(f);
	assert_int_equal(store_session_get(f->store, s.id, &got, &e), 0);
	assert_string_equal(got.end_reason, "agent_restart");
	/* every write, including the restore, is in the audit log */
	assert_int_equal(store_changes_list(f->store, "loop0", 100, &ch, &n, &e), 0);
	for (i = 0; i < n; i++)
		if (!strcmp(ch[i].outcome, "restored") && strstr(ch[i].origin, "agent_restart"))
			restored++;
	assert_int_equal(restored, 2);
	free(ch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_without_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_open_session_per_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expiry_and_renew, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_after_restart, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
