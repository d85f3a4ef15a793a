/* httpd_slots.c -- the connection slots: which connections are open, idle, or serving an
 * authenticated request, and at the connection limit the idle and unauthenticated ones closed
 * (the longest idle first) so that an authenticated request always gets a slot. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "http/httpd.h"
#include "http/httpd_priv.h"
#include "log.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

#define SLOTS_LOG_EVERY_S 10.0

void httpd_slots_limit(struct httpd *h, unsigned max_conns, unsigned threads)
{
	unsigned reserve = max_conns / 16;

	/* Each HTTP thread accepts into its own share of the slots: leaving one free in every
	 * thread's share means some thread can always accept. */
	if (reserve < threads + 1)
		reserve = threads + 1;
	if (reserve > 64)
		reserve = 64;
	h->slots_room_at = max_conns > reserve ? max_conns - reserve : 1;
}

static struct conn_slot *slot_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* The slot that makes room (slots_lock held): never one serving an authenticated request;
 * of the rest, one that never carried the token before one that did, then the longest idle
 * (for a connection that has not sent a whole request yet: the oldest). NULL if none. */
static struct conn_slot *victim(struct httpd *h, const struct conn_slot *newest)
{
	struct conn_slot *s, *best = NULL;

	for (s = h->slots; s; s = s->next) {
		if (s == newest || s->evicting || (s->busy && s->authed))
			continue;
		if (!best || (!s->authed && best->authed) ||
		    (s->authed == best->authed && s->since_mono_s < best->since_mono_s))
			best = s;
	}
	return best;
}

/* Log the connections closed to make room, at most every SLOTS_LOG_EVERY_S (slots_lock held). */
static void evictions_log(struct httpd *h, double now)
{
	unsigned long n = h->slots_evicted - h->slots_evicted_logged;

	if (!n || now - h->slots_log_mono_s < SLOTS_LOG_EVERY_S)
		return;
	log_warn("http: at the connection limit (%u open): closed %lu idle or unauthenticated "
	         "connection(s) to make room (%lu since the start)",
	         h->n_slots, n, h->slots_evicted);
	h->slots_evicted_logged = h->slots_evicted;
	h->slots_log_mono_s = now;
}

void httpd_slots_notify(void *cls, struct MHD_Connection *c, void **socket_context, int toe)
{
	struct httpd *h = cls;
	struct conn_slot *s = *socket_context, *v;
	const union MHD_ConnectionInfo *ci;
	double now = time_mono_s();

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		s = xcalloc(1, sizeof(*s));
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		s->fd = ci ? ci->connect_fd : -1;
		s->since_mono_s = now;
		*socket_context = s;
		pthread_mutex_lock(&h->slots_lock);
		s->next = h->slots;
		if (h->slots)
			h->slots->prev = s;
		h->slots = s;
		h->n_slots++;
		if (h->n_slots > h->slots_room_at && (v = victim(h, s)) && v->fd >= 0) {
			/* Its own thread sees the end of the stream and closes it; the descriptor
			 * stays open until its CLOSED notification, which waits for this lock. */
			v->evicting = true;
			shutdown(v->fd, SHUT_RDWR);
			h->slots_evicted++;
		}
		evictions_log(h, now);
		pthread_mutex_unlock(&h->slots_lock);
		return;
	}
	if (!s)
		return;
	pthread_mutex_lock(&h->slots_lock);
	if (s->prev)
		s->prev->next = s->next;
	else
		h->slots = s->next;
	if (s->next)
		s->next->prev = s->prev;
	h->n_slots--;
	pthread_mutex_unlock(&h->slots_lock);
	free(s);
	*socket_context = NULL;
}

void httpd_slot_request(struct httpd *h, struct MHD_Connection *c, bool authed)
{
	struct conn_slot *s = slot_of(c);

	if (!s)
		return;
	pthread_mutex_lock(&h->slots_lock);
	s->busy = true;
	s->authed = s->authed || authed;
	pthread_mutex_unlock(&h->slots_lock);
}

void httpd_slot_request_end(struct httpd *h, struct MHD_Connection *c)
{
	struct conn_slot *s = slot_of(c);

	if (!s)
		return;
	pthread_mutex_lock(&h->slots_lock);
	s->busy = false;
	s->since_mono_s = time_mono_s();
	pthread_mutex_unlock(&h->slots_lock);
}

unsigned long httpd_slots_evicted(struct httpd *h)
{
	unsigned long n;

	pthread_mutex_lock(&h->slots_lock);
	n = h->slots_evicted;
	pthread_mutex_unlock(&h->slots_lock);
	return n;
}
