/* test_ptree.c -- ptree.c on real processes: stat parsing, trees of setsid() children, orphans
 * of a dead parent, a reused pid (another start time) that must never be signalled, and a
 * root killed while it forks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/ptree.h"
#include "testutil.h"

static void test_stat_parse(void **state)
{
	struct ptree_stat st;

	/* Linux 6.18, a comm with spaces and parentheses (field 2 is cut at the last ')') */
	assert_int_equal(ptree_stat_parse("4242 (fio (a) b)) S 4200 4242 4242 0 -1 4194560 1234 0 "
	                                  "0 0 12 34 0 0 20 0 1 0 797208 123456789 1234 "
	                                  "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0",
	                                  &st),
	                 0);
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 4200);
	assert_int_equal(st.pgrp, 4242);
	assert_int_equal(st.start, 797208);
	assert_int_equal(
	        ptree_stat_parse("1 (init) Z 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9 0", &st), 0);
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.start, 9);
	assert_int_equal(ptree_stat_parse("1 (init) S 0 1 1", &st), -EINVAL);
	assert_int_equal(ptree_stat_parse("no parenthesis", &st), -EINVAL);
	assert_int_equal(ptree_stat_read(getpid(), &st), 0);
	assert_int_equal(st.ppid, getppid());
	assert_true(st.start > 0);
}

/* sh -c script as a child; returns its pid and identity once it printed a line. */
static pid_t spawn_sh(const char *script, struct pident *id)
{
	struct ptree_stat st;
	int fds[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	assert_true(pid > 0);
	assert_int_equal(read(fds[0], &c, 1), 1); /* the script is running */
	close(fds[0]);
	assert_int_equal(ptree_stat_read(pid, &st), 0);
	*id = (struct pident){ pid, st.start };
	return pid;
}

static int alive(pid_t pid)
{
	struct ptree_stat st;

	return ptree_stat_read(pid, &st) == 0 && st.state != 'Z';
}

/* A recorded pid whose start time differs is another process: never found, never killed. */
static void test_reused_pid_is_spared(void **state)
{
	struct pident id, other, *out = NULL;
	pid_t pid = spawn_sh("echo up; exec sleep 60", &id);
	int n = -1;

	other = (struct pident){ pid, id.start + 1 };
	assert_int_equal(ptree_collect(&other, 1, &out), 0);
	assert_null(out);
	assert_int_equal(ptree_kill(&other, 1, 2.0, &n), 0);
	assert_int_equal(n, 0);
	assert_true(alive(pid));
	assert_int_equal(kill(pid, 0), 0);
	/* the right identity: found and killed */
	assert_int_equal(ptree_collect(&id, 1, &out), 1);
	assert_int_equal(out[0].pid, pid);
	free(out);
	assert_int_equal(ptree_kill(&id, 1, 5.0, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* The root's setsid() children (fio's workers) belong to the tree: found, all killed. */
static void test_tree_with_setsid_children(void **state)
{
	struct pident id, *out = NULL;
	pid_t pid = spawn_sh("setsid sleep 60 & setsid sleep 60 & sleep 0.3; echo up; wait", &id);
	int n = -1, status;

	assert_int_equal(ptree_collect(&id, 1, &out), 3);
	free(out);
	assert_int_equal(ptree_kill(&id, 1, 5.0, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(ptree_collect(&id, 1, &out), 0);
}

/* Once recorded, children outlive their parent (reparented away): still killed. */
static void test_orphans_of_a_dead_parent(void **state)
{
	struct pident id, *tree = NULL, *out = NULL;
	pid_t pid = spawn_sh("setsid sleep 60 & setsid sleep 60 & sleep 0.3; echo up; wait", &id);
	int n, k;

	n = ptree_collect(&id, 1, &tree);
	assert_int_equal(n, 3);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Walking from the dead root finds nothing now: the record is what keeps them. */
	assert_int_equal(ptree_collect(&id, 1, &out), 0);
	assert_int_equal(ptree_collect(tree, n, &out), 2);
	free(out);
	assert_int_equal(ptree_kill(tree, n, 5.0, &k), 0);
	assert_int_equal(k, 2);
	assert_int_equal(ptree_collect(tree, n, &out), 0);
	free(tree);
}

/* Processes whose command line holds marker (a /proc scan: orphans included); each gets sig
 * when sig is not 0. */
static int marked(const char *marker, int sig)
{
	char path[64], line[256];
	struct dirent *de;
	int n = 0, fd;
	ssize_t len, i;
	DIR *d = opendir("/proc");

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY)) < 0)
			continue;
		len = read(fd, line, sizeof(line) - 1);
		close(fd);
		if (len <= 0)
			continue;
		for (i = 0; i < len; i++)
			if (!line[i])
				line[i] = ' ';
		line[len] = '\0';
		if (!strstr(line, marker))
			continue;
		n++;
		if (sig)
			kill((pid_t)strtol(de->d_name, NULL, 10), sig);
	}
	closedir(d);
	return n;
}

/* A root that forks without pause (fio's main process starting its workers, as in the agent
 * killed at a job's start): a child forked while the kill is under way is killed too, never
 * orphaned out of reach. Several tries, since the fork has to race the stop; the root forks
 * a bounded number of children, and whatever a failing try left is killed before the assert,
 * so that a failure cannot leave a fork loop behind. */
static void test_kill_while_forking(void **state)
{
	static const char script[] = "echo up; i=0; while [ $i -lt 3000 ]; do setsid sleep 31.4159 "
	                             "& i=$((i + 1)); done; wait";
	struct pident id;
	int try, n, rc, left, status;
	pid_t pid;

	for (try = 0; try < 10; try++) {
		pid = spawn_sh(script, &id);
		rc = ptree_kill(&id, 1, 30.0, &n); /* generous: a loaded machine */
		left = marked("sleep 31.4159", 0);
		if (rc || left) {
			kill(pid, SIGKILL);
			while (marked("sleep 31.4159", SIGKILL))
				usleep(10000);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_int_equal(rc, 0);
		assert_true(n >= 1);
		assert_int_equal(left, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_reused_pid_is_spared),
		cmocka_unit_test(test_tree_with_setsid_children),
		cmocka_unit_test(test_orphans_of_a_dead_parent),
		cmocka_unit_test(test_kill_while_forking),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
