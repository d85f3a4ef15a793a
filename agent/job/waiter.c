/* waiter.c -- the prerun of a fio spawned before its job's moment: sleep to it, report the wake. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "job/waiter.h"
#include "timeutil.h"
#include "banned.h"

/* Longest report read: a line per job process of one fio, numjobs at most 64 here. */
#define WAITER_REPORT_MAX 8192

/* Sleep until at_s (epoch seconds) by the realtime clock, a signal's interruption resumed. */
static void sleep_until(double at_s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)floor(at_s);
	ts.tv_nsec = (long)((at_s - floor(at_s)) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Append "WOKE_S LATE_S SLEPT_S\n" to the report open on fd: one write, so that the lines of
 * several waiters never mix. */
static int report_write(int fd, double woke_s, double late_s, double slept_s)
{
	char line[80];
	int n;

	n = snprintf(line, sizeof(line), "%.6f %.6f %.6f\n", woke_s, late_s, slept_s);
	return write(fd, line, (size_t)n) == n ? 0 : -EIO;
}

int waiter_main(int argc, char **argv)
{
	double at_s, woke_s, began_s;
	sigset_t stop;
	pid_t parent;
	char *end;
	int rc, fd;

	if (argc < 2 || strcmp(argv[1], WAITER_FLAG))
		return -1;
	if (argc != 5 || strcmp(argv[3], "--report") || !*argv[4]) {
		fprintf(stderr, "usage: fleettune-agent %s EPOCH_S --report FILE\n", WAITER_FLAG);
		return 2;
	}
	errno = 0;
	at_s = strtod(argv[2], &end);
	if (errno || end == argv[2] || *end || !(at_s > 0) || !isfinite(at_s)) {
		fprintf(stderr, "fleettune-agent %s: '%s' is not an epoch time\n", WAITER_FLAG,
		        argv[2]);
		return 2;
	}
	/* Stoppable whatever it inherited: a shell that ignored SIGTERM while it forked (a trap
	 * of its own) passes the ignoring on through exec, and the agent's SIGTERM to the group
	 * would leave the waiter asleep until its moment. And it dies with its fio (the parent:
	 * "exec" left no shell between), however that ends: nothing is left to start. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_UNBLOCK, &stop, NULL);
	parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != parent)
		return 1; /* the parent died before the call */
	/* Made before the sleep: in the moment only a write is left (and the exit). */
	fd = open(argv[4], O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "fleettune-agent %s: cannot open '%s': %s\n", WAITER_FLAG, argv[4],
		        strerror(errno));
		return 1;
	}
	began_s = time_now_s();
	sleep_until(at_s);
	woke_s = time_now_s();
	rc = report_write(fd, woke_s, woke_s - at_s, at_s > began_s ? at_s - began_s : 0);
	if (rc) {
		fprintf(stderr, "fleettune-agent %s: cannot write '%s': %s\n", WAITER_FLAG, argv[4],
		        strerror(-rc));
		return 1;
	}
	_exit(0); /* in the moment: nothing of the process's exit but the kernel's */
}

bool waiter_exe_ok(const char *exe)
{
	const char *c;

	if (!exe || exe[0] != '/')
		return false;
	for (c = exe; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("/._+-", *c)))
			return false;
	return true;
}

int waiter_command(const char *exe, double at_s, char *out, size_t len)
{
	int n;

	if (!waiter_exe_ok(exe) || !(at_s > 0))
		return -EINVAL;
	n = snprintf(out, len, "exec '%s' %s %.6f --report %s", exe, WAITER_FLAG, at_s,
	             WAITER_REPORT);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The earliest WOKE_S and the shortest SLEPT_S of the report's lines text; -EPROTO if a line
 * is not "WOKE_S LATE_S SLEPT_S". */
static int report_parse(char *text, double *woke_s, double *slept_s)
{
	char *line, *save = NULL, *end;
	double w, late, slept;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		errno = 0;
		w = strtod(line, &end);
		if (errno || end == line || *end != ' ' || !(w > 0))
			return -EPROTO;
		late = strtod(end, &end);
		if (errno || *end != ' ')
			return -EPROTO;
		slept = strtod(end, &end);
		if (errno || *end || !(slept >= 0) || !isfinite(late))
			return -EPROTO;
		if (!n || w < *woke_s)
			*woke_s = w;
		if (!n || slept < *slept_s)
			*slept_s = slept;
		n++;
	}
	return n ? 1 : 0;
}

int waiter_report_read(int dir_fd, double *woke_s, double *slept_s)
{
	char text[WAITER_REPORT_MAX];
	ssize_t n = 0, got = 0;
	int fd, rc;

	fd = openat(dir_fd, WAITER_REPORT, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	while ((size_t)got < sizeof(text) - 1) {
		n = read(fd, text + got, sizeof(text) - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	rc = n < 0 ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	/* A line still being written (no newline yet) is left for the next look. */
	while (got > 0 && text[got - 1] != '\n')
		got--;
	text[got] = '\0';
	return report_parse(text, woke_s, slept_s);
}
