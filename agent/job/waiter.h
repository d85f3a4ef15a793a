/* waiter.h -- the waiter a fio engine spawned before its job's moment runs as its prerun: the
 * agent's own binary in its --wait-until mode, the command fio is given for it, and its report.
 */
#ifndef FT_WAITER_H
#define FT_WAITER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A fio job whose first pass has a start_at is spawned before it, with fio's exec_prerun set to
 * waiter_command(): fio sets its job up (files, I/O engine, buffers), runs the command with
 * system() in each job process (output to "<jobname>.prerun.txt" in fio's cwd), and starts its
 * I/O and its clock (its epoch) when the command returns. The command is the agent's binary,
 *   fleettune-agent --wait-until EPOCH_S --report WAITER_REPORT
 * which sleeps until EPOCH_S by the realtime clock (clock_nanosleep, TIMER_ABSTIME), appends
 * "WOKE_S LATE_S SLEPT_S\n" to the report (epoch seconds it woke at, woke less EPOCH_S, and how
 * long it was to sleep: EPOCH_S less when it began waiting, 0 when the moment had passed; all
 * to the microsecond) and exits 0: at once, reporting how late, when the
 * moment has passed. It exits 1
 * (and fio fails the job) when it cannot report. It dies with its parent (PR_SET_PDEATHSIG):
 * a waiter never outlives its fio, and SIGTERM ends it even if it inherited SIGTERM ignored. The
 * report is a relative name: fio's cwd is the pass's private directory.
 */
#define WAITER_FLAG "--wait-until"
#define WAITER_REPORT "ft-wait.txt"

/* With argv[1] WAITER_FLAG: be the waiter (the arguments above) and return its exit status;
 * else -1 (not the waiter's command line). Called first thing in the agent's main. */
int waiter_main(int argc, char **argv);

/* Whether exe (the agent's binary, as /proc/self/exe names it) can be put into the command:
 * absolute, and only of [A-Za-z0-9/._+-] (it is single-quoted, but fio and sh see no quote,
 * blank, '$' or newline to take apart). */
bool waiter_exe_ok(const char *exe);

/* The prerun command for a waiter of exe (waiter_exe_ok) waiting until at_s, into out[0..len).
 * "exec": sh becomes the waiter, no process more. -EINVAL (exe not ok) or -ENAMETOOLONG. */
int waiter_command(const char *exe, double at_s, char *out, size_t len);

/* The report in the directory dir_fd (a fio with numjobs runs one waiter per job process): 1
 * with the earliest wake in *woke_s and the shortest sleep in *slept_s (the job process that
 * was ready last), 0 when no line is there yet, -errno when it cannot be read or is not a
 * report (-EPROTO). */
int waiter_report_read(int dir_fd, double *woke_s, double *slept_s);

#endif
