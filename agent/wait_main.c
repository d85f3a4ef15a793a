/* wait_main.c -- fleettune-wait: the waiter of a fio spawned before its job's moment (waiter.h)
 * alone, a small binary (libc only) whose start and exit cost less than the agent's. */
#include <stdio.h>

#include "job/waiter.h"
#include "banned.h"

int main(int argc, char **argv)
{
	int rc = waiter_main(argc, argv);

	if (rc >= 0)
		return rc;
	fprintf(stderr, "usage: fleettune-wait %s EPOCH_S --report FILE\n", WAITER_FLAG);
	return 2;
}
