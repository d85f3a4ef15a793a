/* test_proc.c -- proc.c on real children: capture, exits, group kills, stale groups. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "engines/engine.h"
#include "enginetest.h"
#include "job/proc.h"
#include "testutil.h"
#include "timeutil.h"

#define FAKE_FIO FT_FIXTURES "/fake-fio.sh"

/* Poll until the child is done; fails the test after timeout_s. Returns the elapsed time. */
static double run_until_exit(struct proc *p, double timeout_s)
{
	double t0 = time_mono_s();
	int r;

	while ((r = proc_poll(p, 100)) == 0) {
		if (time_mono_s() - t0 > timeout_s)
			fail_msg("child %d still running after %.1f s", (int)p->pid, timeout_s);
	}
	assert_int_equal(r, 1);
	return time_mono_s() - t0;
}

/* Poll until out contains s. */
static void wait_for_output(struct proc *p, const char *s)
{
	double t0 = time_mono_s();

	while (!strstr(p->out.data, s)) {
		assert_true(proc_poll(p, 50) >= 0);
		if (time_mono_s() - t0 > 10)
			fail_msg("no \"%s\" from child after 10 s (got \"%s\")", s, p->out.data);
	}
}

static int spawn_sh(struct proc *p, const char *script)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct err e;
	int rc;

	err_clear(&e);
	rc = proc_spawn(p, argv, NULL, &e);
	if (rc < 0)
		fail_msg("proc_spawn: %s", e.msg);
	return rc;
}

static void test_capture_and_exit_code(void **state)
{
	struct proc p;

	spawn_sh(&p, "echo hello; echo oops >&2; exit 3");
	assert_true(p.pid > 0);
	run_until_exit(&p, 10);
	assert_string_equal(p.out.data, "hello\n");
	assert_string_equal(p.err.data, "oops\n");
	assert_int_equal(p.exited, 1);
	assert_int_equal(p.exit_code, 3);
	assert_int_equal(p.term_signal, 0);
	assert_int_equal(proc_poll(&p, 0), 1); /* stays done */
	proc_release(&p);
	proc_release(&p); /* twice is fine */
	proc_release(NULL);
	memset(&p, 0, sizeof(p)); /* zeroed, never spawned: fds 0 and 1 are not closed */
	proc_release(&p);
	assert_true(fcntl(0, F_GETFD) >= 0 || errno != EBADF);
	assert_true(fcntl(1, F_GETFD) >= 0);
}

static void test_own_group_and_env(void **state)
{
	struct proc p;
	char want[64];

	/* ps-free checks: the child's pgid is its pid, stdin is /dev/null, LC_ALL is C. */
	spawn_sh(&p, "cat; echo \"in=$? lc=$LC_ALL\"; ps_pgid=$(cut -d' ' -f5 /proc/$$/stat); "
	             "echo \"pgid=$ps_pgid\"");
	run_until_exit(&p, 10);
	snprintf(want, sizeof(want), "in=0 lc=C\npgid=%d\n", (int)p.pid);
	assert_string_equal(p.out.data, want);
	assert_int_equal(p.exit_code, 0);
	proc_release(&p);
}

static void test_cwd_and_fds(void **state)
{
	char *dir = tu_tmpdir(), script[128];
	char *argv[] = { "sh", "-c", script, NULL };
	struct proc p;
	struct err e;
	int leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose */

	assert_true(leak > 2);
	snprintf(script, sizeof(script),
	         "pwd; [ -e /proc/self/fd/%d ] && echo leaked || echo clean", leak);
	assert_int_equal(proc_spawn(&p, argv, dir, &e), 0);
	run_until_exit(&p, 10);
	assert_non_null(strstr(p.out.data, dir));
	assert_non_null(strstr(p.out.data, "clean\n"));
	proc_release(&p);
	close(leak);
	tu_rmrf(dir);
	free(dir);
}

static void test_big_output(void **state)
{
	char *argv[] = { "head", "-c", "3000000", "/dev/zero", NULL };
	struct proc p;
	struct err e;

	assert_int_equal(proc_spawn(&p, argv, NULL, &e), 0);
	run_until_exit(&p, 10);
	assert_int_equal(p.out.len, 3000000);
	assert_int_equal(p.exit_code, 0);
	proc_release(&p);
}

static void test_spawn_failure(void **state)
{
	char *argv[] = { "/nonexistent/fio", "--version", NULL };
	char *noexec[] = { FT_FIXTURES "/fio/read.json", NULL };
	struct proc p;
	struct err e;

	assert_int_equal(proc_spawn(&p, argv, NULL, &e), -ENOENT);
	assert_int_equal(e.code, ERR_ENGINE_FAILED);
	assert_string_equal(e.msg, "cannot run '/nonexistent/fio': No such file or directory");
	assert_int_equal(p.pid, 0);
	proc_release(&p);
	assert_int_equal(proc_spawn(&p, noexec, NULL, &e), -EACCES);
	proc_release(&p);
	assert_int_equal(proc_spawn(&p, argv, "/nonexistent-dir", &e), -ENOENT);
	proc_release(&p);
}

/* Count live members of pgid by scanning /proc independently of proc.c. */
static int survivors(pid_t pgid)
{
	char path[300], line[512], *rp, state;
	int n = 0, pg, ppid;
	struct dirent *de;
	DIR *d = opendir("/proc");
	FILE *f;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) && (rp = strrchr(line, ')')) &&
		    sscanf(rp + 1, " %c %d %d", &state, &ppid, &pg) == 3 && pg == pgid &&
		    state != 'Z')
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* sh -c 'sleep 30 & sleep 30 & wait': SIGTERM reaches the sleeps too, nothing survives. */
static void test_terminate_group(void **state)
{
	struct proc p;
	pid_t pgid;
	double t0;

	spawn_sh(&p, "sleep 30 & sleep 30 & echo started; wait");
	pgid = p.pid;
	wait_for_output(&p, "started");
	assert_int_equal(proc_poll(&p, 0), 0);
	assert_true(proc_group_alive(pgid));
	t0 = time_mono_s();
	assert_int_equal(proc_terminate(&p, 5.0), 0);
	assert_true(time_mono_s() - t0 < 4.0);
	assert_int_equal(p.exited, 1);
	assert_int_equal(p.exit_code, -1);
	assert_int_equal(p.term_signal, SIGTERM);
	assert_false(proc_group_alive(pgid));
	assert_int_equal(survivors(pgid), 0);
	proc_release(&p);
}

/* A group that ignores SIGTERM gets SIGKILL after the grace period. */
static void test_terminate_escalates(void **state)
{
	struct proc p;
	pid_t pgid;
	double t0, dt;

	spawn_sh(&p, "trap '' TERM; sleep 30 & echo started; wait; wait");
	pgid = p.pid;
	wait_for_output(&p, "started");
	t0 = time_mono_s();
	assert_int_equal(proc_terminate(&p, 0.5), 0);
	dt = time_mono_s() - t0;
	assert_true(dt >= 0.5 && dt < 4.0);
	assert_int_equal(p.term_signal, SIGKILL);
	assert_false(proc_group_alive(pgid));
	assert_int_equal(survivors(pgid), 0);
	proc_release(&p);
}

/* The leader exits while an orphan keeps the pipes open: poll gives up on the pipes after a
 * second; proc_terminate then removes the orphan. */
static void test_orphan_holds_pipes(void **state)
{
	struct proc p;
	pid_t pgid;
	double dt;

	spawn_sh(&p, "sleep 30 & echo done");
	pgid = p.pid;
	dt = run_until_exit(&p, 10);
	assert_true(dt < 3.0);
	assert_string_equal(p.out.data, "done\n");
	assert_int_equal(p.exit_code, 0);
	assert_int_equal(p.out_fd, -1);
	assert_true(proc_group_alive(pgid));
	assert_int_equal(proc_terminate(&p, 2.0), 0);
	assert_false(proc_group_alive(pgid));
	assert_int_equal(p.exit_code, 0); /* the leader's status is kept */
	proc_release(&p);
}

/* proc_release on a running child kills and reaps it. */
static void test_release_running(void **state)
{
	struct proc p;
	pid_t pgid;
	double t0 = time_mono_s();

	spawn_sh(&p, "sleep 30");
	pgid = p.pid;
	proc_release(&p);
	assert_true(time_mono_s() - t0 < 5.0);
	assert_int_equal(kill(pgid, 0) < 0 && errno == ESRCH, 1);
}

/* A poll with a bell returns when the bell rings (emptied: the next poll sleeps again), not at
 * its timeout; without a ring it sleeps the timeout; an exit still ends it. */
static void test_poll_bell(void **state)
{
	struct proc p;
	uint64_t one = 1, got;
	double t0;
	int bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	assert_true(bell >= 0);
	spawn_sh(&p, "sleep 2");
	t0 = time_mono_s();
	assert_int_equal(proc_poll_bell(&p, 200, bell), 0);
	assert_true(time_mono_s() - t0 >= 0.19); /* nothing rang: the whole timeout */
	assert_int_equal(write(bell, &one, sizeof(one)), (ssize_t)sizeof(one));
	t0 = time_mono_s();
	assert_int_equal(proc_poll_bell(&p, 30000, bell), 0);
	assert_true(time_mono_s() - t0 < 1.0);
	assert_true(read(bell, &got, sizeof(got)) < 0 && errno == EAGAIN); /* emptied */
	t0 = time_mono_s();
	while (proc_poll_bell(&p, 30000, bell) == 0)
		assert_true(time_mono_s() - t0 < 10.0);
	assert_true(p.exited);
	assert_int_equal(p.exit_code, 0);
	proc_release(&p);
	close(bell);
}

/* A group left by a "crashed agent": only killed when the command name matches. */
static void test_kill_stale_group(void **state)
{
	char *argv[] = { FAKE_FIO, "--name=stale", "--runtime=30", NULL };
	struct proc p;
	struct err e;
	pid_t pgid;

	assert_int_equal(proc_spawn(&p, argv, NULL, &e), 0);
	pgid = p.pid;
	usleep(200000);
	assert_int_equal(proc_kill_stale_group(pgid, "fio"), 0);
	assert_int_equal(proc_kill_stale_group(pgid, "bonnie++"), 0);
	assert_true(proc_group_alive(pgid));
	assert_int_equal(proc_kill_stale_group(pgid, "fake-fio.sh"), 1);
	run_until_exit(&p, 10); /* the leader is our child: reap it */
	assert_false(proc_group_alive(pgid));
	assert_int_equal(survivors(pgid), 0);
	proc_release(&p);
	assert_int_equal(proc_kill_stale_group(pgid, "fake-fio.sh"), 0);
	assert_int_equal(proc_kill_stale_group(0, "fio"), 0);
	assert_int_equal(proc_kill_stale_group(getpgrp(), "test_proc"), 0);
}

/* The fake fio through the real fio argv: success, failure, and cancel mid-run. */
static void fake_fio_run(const char *opts_json, struct proc *p)
{
	struct engine_target t = { FAKE_FIO, "/dev/loop0", NULL, "ft-job1-l1", NULL, NULL };
	struct engine_opts opts;
	char **argv;
	struct err e;

	opts_load(&fio_engine, opts_json, &opts);
	assert_int_equal(fio_engine.argv_build(&opts, &t, &argv, &e), 0);
	assert_int_equal(proc_spawn(p, argv, NULL, &e), 0);
	engine_argv_free(argv);
}

static int fake_fio_parse(struct proc *p, struct metrics *m, struct err *e)
{
	return fio_engine.parse(p->out.data, p->out.len, p->err.data, p->err.len, p->exit_code,
	                        p->term_signal, m, e);
}

static void test_fake_fio(void **state)
{
	char *dir = tu_tmpdir(), log[512];
	struct metrics m;
	struct proc p;
	struct err e;
	double dt;

	snprintf(log, sizeof(log), "%s/argv.log", dir);
	setenv("FAKE_FIO_ARGV_LOG", log, 1);
	fake_fio_run("{\"rw\":\"randwrite\",\"bs\":\"4M\",\"runtime_s\":1,\"time_based\":true}",
	             &p);
	dt = run_until_exit(&p, 10);
	assert_true(dt >= 0.9);
	assert_int_equal(p.exit_code, 0);
	assert_int_equal(fake_fio_parse(&p, &m, &e), 0);
	assert_non_null(metrics_get(&m, "write.bw_mib"));
	assert_null(metrics_get(&m, "read.bw_mib"));
	proc_release(&p);
	assert_string_equal(tu_read(dir, "argv.log"),
	                    "--name=ft-job1-l1\n--output-format=json\n--group_reporting\n"
	                    "--filename=/dev/loop0\n--rw=randwrite\n--bs=4M\n--runtime=1\n"
	                    "--time_based\n--\n");
	unsetenv("FAKE_FIO_ARGV_LOG");

	setenv("FAKE_FIO_FAIL", "1", 1);
	fake_fio_run("{\"rw\":\"read\"}", &p);
	run_until_exit(&p, 10);
	assert_int_equal(p.exit_code, 1);
	assert_int_equal(fake_fio_parse(&p, &m, &e), -EIO);
	assert_non_null(strstr(e.msg, "Invalid argument"));
	proc_release(&p);
	unsetenv("FAKE_FIO_FAIL");

	/* Cancel: SIGTERM to the group; the fake prints fio's partial JSON and exits 128. */
	fake_fio_run("{\"rw\":\"randwrite\",\"runtime_s\":30,\"time_based\":true}", &p);
	usleep(300000);
	assert_int_equal(proc_poll(&p, 0), 0);
	assert_int_equal(proc_terminate(&p, 5.0), 0);
	assert_int_equal(p.exit_code, 128);
	assert_int_equal(fake_fio_parse(&p, &m, &e), -EINTR);
	assert_non_null(strstr(e.msg, "terminating on signal 15"));
	assert_non_null(metrics_get(&m, "write.bw_mib"));
	assert_false(proc_group_alive(p.pid));
	proc_release(&p);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_exit_code),
		cmocka_unit_test(test_own_group_and_env),
		cmocka_unit_test(test_cwd_and_fds),
		cmocka_unit_test(test_big_output),
		cmocka_unit_test(test_spawn_failure),
		cmocka_unit_test(test_terminate_group),
		cmocka_unit_test(test_terminate_escalates),
		cmocka_unit_test(test_orphan_holds_pipes),
		cmocka_unit_test(test_release_running),
		cmocka_unit_test(test_poll_bell),
		cmocka_unit_test(test_kill_stale_group),
		cmocka_unit_test(test_fake_fio),
	};

	signal(SIGPIPE, SIG_IGN); /* like the agent; the children must not inherit it */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
