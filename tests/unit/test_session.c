/* test_session.c -- sessions: snapshot, restore on close, on expiry and after a restart; the audit
 * log. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "state/session.h"
#include "store/store.h"
#include "testutil.h"
#include "xmalloc.h"

extern const char agent_schema_sql[];

struct fx {
	char *root;
	char db[512];
	const char *allow[1];
	struct sysfs fs;
	struct tune t;
	struct store *store;
	struct session_mgr m;
};

static int intent_cb(void *cls, struct tune_change *c, struct err *e)
{
	struct fx *f = cls;

	return store_change_intent(f->store, c, 1000.0, e);
}

static void outcome_cb(void *cls, const struct tune_change *c)
{
	struct fx *f = cls;
	struct err e;

	assert_int_equal(store_change_outcome(f->store, c, 1000.0, &e), 0);
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
	{
		struct tune_audit audit = { .intent = intent_cb, .outcome = outcome_cb, .cls = f };

		tune_init(&f->t, &f->fs, &audit);
	}
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
	assert_int_equal(e.code, ERR_CONFLICT);
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

/* Opens racing in threads, as HTTP requests do: one session per device, the others 409. */
struct racer {
	struct fx *f;
	pthread_barrier_t *go;
	int rc;
	struct err e;
};

static void *race_open(void *arg)
{
	struct racer *r = arg;
	struct session_rec s;

	pthread_barrier_wait(r->go);
	r->rc = session_open(&r->f->m, "loop0", 60, 1000.0, &s, &r->e);
	return NULL;
}

static void test_one_open_session_racing(void **state)
{
	enum { ROUNDS = 10, THREADS = 16 };
	struct fx *f = *state;
	struct racer r[THREADS];
	pthread_t th[THREADS];
	pthread_barrier_t go;
	struct session_rec *open;
	struct session_rec end;
	struct err e;
	int round, i, ok, n;

	for (round = 0; round < ROUNDS; round++) {
		pthread_barrier_init(&go, NULL, THREADS);
		for (i = 0; i < THREADS; i++) {
			r[i] = (struct racer){ .f = f, .go = &go };
			assert_int_equal(pthread_create(&th[i], NULL, race_open, &r[i]), 0);
		}
		ok = 0;
		for (i = 0; i < THREADS; i++) {
			pthread_join(th[i], NULL);
			if (r[i].rc == 0)
				ok++;
			else
				assert_int_equal(r[i].e.code, ERR_CONFLICT);
		}
		pthread_barrier_destroy(&go);
		assert_int_equal(ok, 1);
		assert_int_equal(session_list(&f->m, "open", "loop0", &open, &n, &e), 0);
		assert_int_equal(n, 1);
		assert_int_equal(session_end(&f->m, open[0].id, true, "closed", 1001.0, &end, &e),
		                 0);
		free(open);
	}
}

/* A database where a race of an older agent left two open sessions on one device: migration 3
 * keeps the oldest open (it holds the values from before both) and closes the other. */
static void test_migration_closes_duplicates(void **state)
{
	struct fx *f = *state;
	char path[600], *v2;
	struct session_rec *list;
	struct store *st;
	struct db *d;
	struct err e;
	int n;

	snprintf(path, sizeof(path), "%s/old.db", f->root);
	v2 = xstrndup(agent_schema_sql,
	              (size_t)(strstr(agent_schema_sql, "-- migration 3") - agent_schema_sql));
	assert_int_equal(db_open(&d, path, &(struct db_kind){ v2, ERR_STORE_ERROR, "", 0 }, &e), 0);
	assert_int_equal(db_user_version(d), 2);
	assert_int_equal(db_exec(d,
	                         "INSERT INTO sessions(device, created_at, ttl_s, expires_at, "
	                         "state, snapshot) VALUES ('loop0', 1, 60, 61, 'open', "
	                         "'{\"nr_requests\":\"64\"}'), ('loop0', 1, 60, 61, 'open', "
	                         "'{\"nr_requests\":\"64\"}'), ('loop1', 1, 60, 61, 'open', "
	                         "'{}')",
	                         &e),
	                 0);
	db_close(d);
	free(v2);
	assert_int_equal(store_open(&st, path, &e), 0);
	assert_int_equal(store_sessions_list(st, "open", NULL, &list, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(list[0].id, 3); /* newest first: loop1's, then loop0's oldest */
	assert_int_equal(list[1].id, 1);
	free(list);
	assert_int_equal(store_sessions_list(st, "closed", NULL, &list, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, 2);
	assert_string_equal(list[0].end_reason, "duplicate");
	free(list);
	store_close(st);
}

/* A session open whose insert fails frees the snapshot it took and encoded (issue 11 item 8:
 * 367 bytes leaked per failure), whether the device already has an open session or the
 * database refuses the INSERT; nothing is recorded. LeakSanitizer checks after each kind. */
static void test_insert_fails(void **state)
{
	struct fx *f = *state;
	struct session_rec s, s2, end, *open;
	struct db *d;
	struct err e;
	int i, n;

	assert_int_equal(session_open(&f->m, "loop0", 60, 1000.0, &s, &e), 0);
	for (i = 0; i < 10; i++) {
		err_clear(&e);
		assert_int_equal(session_open(&f->m, "loop0", 60, 1001.0, &s2, &e), -EBUSY);
		assert_int_equal(e.code, ERR_CONFLICT);
	}
	assert_false(tu_leaked());
	assert_int_equal(session_end(&f->m, s.id, true, "closed", 1002.0, &end, &e), 0);

	assert_int_equal(db_open(&d, f->db, &(struct db_kind){ "", ERR_STORE_ERROR, "", 0 }, &e),
	                 0);
	assert_int_equal(db_exec(d,
	                         "CREATE TRIGGER no_session BEFORE INSERT ON sessions "
	                         "BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
	                         &e),
	                 0);
	db_close(d);
	for (i = 0; i < 10; i++) {
		err_clear(&e);
		assert_int_equal(session_open(&f->m, "loop0", 60, 1003.0, &s2, &e), -EIO);
		assert_int_equal(e.code, ERR_STORE_ERROR);
		assert_non_null(strstr(e.msg, "disk full"));
	}
	assert_false(tu_leaked());
	assert_int_equal(session_list(&f->m, NULL, "loop0", &open, &n, &e), 0);
	assert_int_equal(n, 1); /* the first session only, restored */
	assert_string_equal(open[0].state, "restored");
	free(open);
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

/* The pass each second reads the database only once a session may be due: an open lowers
 * when that is, a pass sets it to the earliest expiry left. */
static void test_expiry_due(void **state)
{
	struct fx *f = *state;
	struct session_rec s1, s2, r, got;
	struct err e;

	assert_int_equal(session_open(&f->m, "loop0", 100, 1000.0, &s1, &e), 0);
	assert_int_equal(session_expire_due(&f->m, 1001.0), 0); /* looks: due at 1100 */
	assert_true(f->m.due_at == 1100.0);
	/* Moved early behind the manager's back: no pass looks before 1100 ... */
	assert_int_equal(store_session_renew(f->store, s1.id, 1001.5, &e), 0);
	assert_int_equal(session_expire_due(&f->m, 1050.0), 0);
	assert_int_equal(store_session_get(f->store, s1.id, &got, &e), 0);
	assert_string_equal(got.state, "open");
	/* ... and one does at 1100. */
	assert_int_equal(session_expire_due(&f->m, 1100.0), 1);
	assert_true(f->m.due_at == HUGE_VAL); /* none open */
	assert_int_equal(session_expire_due(&f->m, 1e9), 0);
	/* An open after a pass lowers the due time: it expires on time. */
	assert_int_equal(session_open(&f->m, "loop0", 10, 1200.0, &s2, &e), 0);
	assert_true(f->m.due_at == 1210.0);
	mistune(f);
	assert_int_equal(session_expire_due(&f->m, 1209.9), 0);
	assert_int_equal(session_renew(&f->m, s2.id, 1205.0, &r, &e), 0);
	/* Renewed to 1215: the pass at 1210 finds nothing and moves the due time to it. */
	assert_int_equal(session_expire_due(&f->m, 1210.0), 0);
	assert_true(f->m.due_at == 1215.0);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "32");
	assert_int_equal(session_expire_due(&f->m, 1215.0), 1);
	assert_restored(f);
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
		cmocka_unit_test_setup_teardown(test_one_open_session_racing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_closes_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insert_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expiry_and_renew, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expiry_due, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_after_restart, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
