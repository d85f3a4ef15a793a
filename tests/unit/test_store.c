/* test_store.c -- store.c against a temp database: opening (migrations up to the schema's
 * last block, a refused path), the audit log written ahead (pending, then its outcome; a row
 * made by the outcome alone), and the sessions table (one open session per device, snapshot,
 * renew and end only while open). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storetest.h"

extern const char agent_schema_sql[];

/* The number of the schema's last "-- migration N" block. */
static int last_migration(void)
{
	const char *p = agent_schema_sql;
	int n = 0, v;

	while ((p = strstr(p, "-- migration "))) {
		p += strlen("-- migration ");
		v = (int)strtol(p, NULL, 10);
		if (v > n)
			n = v;
	}
	return n;
}

static void test_open(void **state)
{
	struct store_fx *f = *state;
	struct store *again;
	char bad[600];
	struct err e;

	assert_true(last_migration() >= 4);
	assert_int_equal(store_schema_version(f->s), last_migration());
	/* A second open of the same file applies nothing and sees the same version. */
	assert_int_equal(store_open(&again, f->path, &e), 0);
	assert_int_equal(store_schema_version(again), last_migration());
	store_close(again);
	/* A directory that does not exist: the store's error code, naming the file. */
	snprintf(bad, sizeof(bad), "%s/no/such/dir/agent.db", f->root);
	err_clear(&e);
	assert_true(store_open(&again, bad, &e) < 0);
	assert_int_equal(e.code, ERR_STORE_ERROR);
	store_close(NULL);
}

static void test_audit_written_ahead(void **state)
{
	struct store_fx *f = *state;
	struct tune_change c = { .device = "loop0",
		                 .name = "nr_requests",
		                 .previous = "64",
		                 .requested = "128",
		                 .origin =
		                         "request 1 PUT /api/v1/devices/loop0/params/nr_requests" };
	struct tune_change sys = { .device = "",
		                   .name = "vm.dirty_ratio",
		                   .previous = "20",
		                   .requested = "10",
		                   .applied = "10",
		                   .outcome = "ok" };
	struct change_rec *list;
	struct err e;
	int n;

	err_clear(&e);
	assert_int_equal(store_change_intent(f->s, &c, 1000.5, &e), 0);
	assert_true(c.id > 0);
	/* Before the write: the row is there, pending, with nothing applied. */
	assert_int_equal(store_changes_list(f->s, "loop0", 10, &list, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, c.id);
	assert_true(list[0].at == 1000.5);
	assert_string_equal(list[0].outcome, "pending");
	assert_string_equal(list[0].previous, "64");
	assert_string_equal(list[0].requested, "128");
	assert_false(list[0].has_applied);
	assert_false(list[0].has_message);
	assert_string_equal(list[0].origin, c.origin);
	free(list);
	/* What the kernel applied goes into the same row. */
	c.applied = "128";
	c.outcome = "ok";
	assert_int_equal(store_change_outcome(f->s, &c, 1001, &e), 0);
	/* An outcome with no intent row (id 0: a restore the intent could not record) adds one;
	 * a sysctl has no device (origin NULL is stored as ""). */
	assert_int_equal(store_change_outcome(f->s, &sys, 1002, &e), 0);
	assert_int_equal(store_changes_list(f->s, NULL, 10, &list, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].name, "vm.dirty_ratio"); /* newest first */
	assert_string_equal(list[0].device, "");
	assert_string_equal(list[0].origin, "");
	assert_string_equal(list[0].outcome, "ok");
	assert_true(list[0].at == 1002);
	assert_string_equal(list[1].applied, "128");
	assert_string_equal(list[1].outcome, "ok");
	assert_true(list[1].at == 1000.5); /* the time of the intent stays */
	free(list);
	/* The device filter and the limit. */
	assert_int_equal(store_changes_list(f->s, "loop1", 10, &list, &n, &e), 0);
	assert_int_equal(n, 0);
	free(list);
	assert_int_equal(store_changes_list(f->s, NULL, 1, &list, &n, &e), 0);
	assert_int_equal(n, 1);
	free(list);
}

static void test_sessions(void **state)
{
	struct store_fx *f = *state;
	struct session_rec r = { 0 }, r2 = { 0 }, got, *list;
	struct tune_snapshot snap, back;
	struct err e;
	int n;

	store_fx_snapshot(&snap, "loop0", "scheduler", "mq-deadline");
	snprintf(r.device, sizeof(r.device), "loop0");
	r.created_at = 100;
	r.ttl_s = 600;
	r.expires_at = 700;
	err_clear(&e);
	assert_int_equal(store_session_insert(f->s, &r, &snap, &e), 0);
	assert_true(r.id > 0);
	assert_string_equal(r.state, "open");
	/* One open session per device. */
	r2 = r;
	assert_int_equal(store_session_insert(f->s, &r2, &snap, &e), -EBUSY);
	assert_int_equal(e.code, ERR_CONFLICT);
	assert_non_null(strstr(e.msg, "loop0"));
	/* Read back, with its snapshot. */
	assert_int_equal(store_session_get(f->s, r.id, &got, &e), 0);
	assert_string_equal(got.device, "loop0");
	assert_int_equal(got.ttl_s, 600);
	assert_true(got.expires_at == 700);
	assert_true(got.ended_at == 0);
	assert_int_equal(store_session_snapshot(f->s, r.id, &back, &e), 0);
	assert_string_equal(back.device, "loop0");
	assert_int_equal(back.n, 1);
	assert_string_equal(back.items[0].name, "scheduler");
	assert_string_equal(back.items[0].previous, "mq-deadline");
	tune_snapshot_release(&back);
	assert_int_equal(store_session_get(f->s, r.id + 100, &got, &e), -ENOENT);
	assert_int_equal(e.code, ERR_NOT_FOUND);
	/* Renew and end while open; then neither. */
	assert_int_equal(store_session_renew(f->s, r.id, 900, &e), 0);
	assert_int_equal(store_session_get(f->s, r.id, &got, &e), 0);
	assert_true(got.expires_at == 900);
	assert_int_equal(store_session_end(f->s, r.id, "restored", 950, "closed",
	                                   "ok (1 value "
	                                   "written)",
	                                   &e),
	                 0);
	assert_int_equal(store_session_get(f->s, r.id, &got, &e), 0);
	assert_string_equal(got.state, "restored");
	assert_true(got.ended_at == 950);
	assert_string_equal(got.end_reason, "closed");
	assert_string_equal(got.restore_outcome, "ok (1 value written)");
	assert_int_equal(store_session_renew(f->s, r.id, 999, &e), -ENOENT);
	assert_int_equal(store_session_end(f->s, r.id, "closed", 999, "closed", "", &e), -ENOENT);
	/* The device is free again; the lists filter by state and device, newest first. */
	assert_int_equal(store_session_insert(f->s, &r2, &snap, &e), 0);
	assert_true(r2.id > r.id);
	assert_int_equal(store_sessions_list(f->s, NULL, NULL, &list, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(list[0].id, r2.id);
	free(list);
	assert_int_equal(store_sessions_list(f->s, "open", "loop0", &list, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, r2.id);
	free(list);
	assert_int_equal(store_sessions_list(f->s, "restored", NULL, &list, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, r.id);
	free(list);
	assert_int_equal(store_sessions_list(f->s, NULL, "loop1", &list, &n, &e), 0);
	assert_int_equal(n, 0);
	free(list);
	tune_snapshot_release(&snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open, store_fx_setup, store_fx_teardown),
		cmocka_unit_test_setup_teardown(test_audit_written_ahead, store_fx_setup,
		                                store_fx_teardown),
		cmocka_unit_test_setup_teardown(test_sessions, store_fx_setup, store_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
