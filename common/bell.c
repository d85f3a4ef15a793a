/* bell.c -- an eventfd a thread sleeps on in poll(): rung to make it look at its flags. */
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "bell.h"
#include "banned.h"

int bell_open(void)
{
	return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

void bell_ring(int bell_fd)
{
	uint64_t one = 1;
	ssize_t n;

	if (bell_fd < 0)
		return;
	n = write(bell_fd, &one, sizeof(one)); /* EAGAIN: its count is full, rung all the same */
	(void)n;
}

void bell_drain(int bell_fd)
{
	uint64_t count;

	while (read(bell_fd, &count, sizeof(count)) > 0)
		;
}
