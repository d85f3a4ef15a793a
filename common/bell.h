/* bell.h -- an eventfd a thread sleeps on in poll(): rung to make it look at its flags. */
#ifndef FT_BELL_H
#define FT_BELL_H

/* A new bell (non-blocking, close-on-exec), or -1 with errno set. */
int bell_open(void);
/* Ring bell_fd (-1: none, nothing done); a bell rung already stays rung. */
void bell_ring(int bell_fd);
/* Silence bell_fd after poll() found it readable: what rang it is for its owner to look at. */
void bell_drain(int bell_fd);

#endif
