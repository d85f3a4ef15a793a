/* httpd_hold.c -- held requests (long-polls): their connections suspended, a thread that
 * resumes them on a wake, at their deadline, when the client goes away or on shutdown, and
 * the hold limits. */
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "bell.h"
#include "http/httpd.h"
#include "http/httpd_priv.h"
#include "log.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

/* How long httpd_stop waits for the held requests' 503 answers to go out. */
#define HOLD_DRAIN_S 2.0

/* The client address of c, to count its holds. */
void httpd_client_of(struct MHD_Connection *c, struct client_addr *out)
{
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	memset(out, 0, sizeof(*out));
	if (sa && sa->sa_family == AF_INET) {
		out->family = AF_INET;
		memcpy(out->addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		out->family = AF_INET6;
		memcpy(out->addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

static void held_unlink(struct httpd *h, struct conn_state *cs)
{
	if (cs->hold_prev)
		cs->hold_prev->hold_next = cs->hold_next;
	else
		h->held = cs->hold_next;
	if (cs->hold_next)
		cs->hold_next->hold_prev = cs->hold_prev;
	cs->hold_prev = cs->hold_next = NULL;
	h->n_held--;
}

/* Whether cs may be held (h->hold_lock held): not while the agent stops, and a new hold only
 * within the limits, which leave connections for everything else; a new one gets its
 * deadline, wait_s from now. */
static enum hold_result hold_admit(struct httpd *h, struct conn_state *cs, double wait_s)
{
	const struct conn_state *o;
	unsigned mine = 0;

	if (h->hold_exit)
		return HOLD_STOPPING;
	if (cs->hold_deadline_mono_s)
		return HOLD_OK;
	if ((unsigned)h->n_holding >= h->max_held)
		return HOLD_FULL;
	for (o = h->held; o; o = o->hold_next)
		if (o->client.family == cs->client.family &&
		    !memcmp(o->client.addr, cs->client.addr, sizeof(o->client.addr)))
			mine++;
	if (mine >= h->max_held_per_ip)
		return HOLD_CLIENT_FULL;
	cs->hold_deadline_mono_s = time_mono_s() + wait_s;
	h->n_holding++;
	return HOLD_OK;
}

/*
 * Suspend c until httpd_wake(key), the deadline set when it was first held, or shutdown; the
 * hold thread then resumes it and libmicrohttpd calls on_request again. seq is the wake count
 * read before the handler looked, so that a wake in between re-runs it at once. Anything but
 * HOLD_OK: not held, answer instead.
 */
enum hold_result httpd_hold(struct httpd *h, struct MHD_Connection *c, struct conn_state *cs,
                            const struct http_resp *resp, uint64_t seq)
{
	double wait_s = resp->wait_s < JOB_WAIT_MAX_S ? resp->wait_s : JOB_WAIT_MAX_S;
	enum hold_result r;

	pthread_mutex_lock(&h->hold_lock);
	r = hold_admit(h, cs, wait_s);
	if (r != HOLD_OK)
		goto out;
	cs->conn = c;
	cs->hold_key = resp->wait_key;
	if (cs->fd < 0) {
		const union MHD_ConnectionInfo *ci =
		        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		cs->fd = ci ? ci->connect_fd : -1;
	}
	cs->hold_woken = h->wake_seq != seq;
	cs->hold_prev = NULL;
	cs->hold_next = h->held;
	if (h->held)
		h->held->hold_prev = cs;
	h->held = cs;
	h->n_held++;
	MHD_suspend_connection(c);
	bell_ring(h->hold_bell_fd);
out:
	pthread_mutex_unlock(&h->hold_lock);
	return r;
}

/* The answer to a request that could not be held (r is not HOLD_OK): 503, and past a hold
 * limit the connection is closed, so that it does not sit idle in a slot either. */
void httpd_hold_refused(struct httpd *h, enum hold_result r, struct http_resp *resp)
{
	bool per_ip = r == HOLD_CLIENT_FULL;

	memset(resp, 0, sizeof(*resp));
	if (r == HOLD_STOPPING) {
		http_error(resp, 503, ERR_SHUTTING_DOWN,
		           "the agent is shutting down; ask again once it is back");
		return;
	}
	http_error(resp, 503, ERR_TOO_MANY_WAITS,
	           "%s %u waiting requests held (%s): ask again without wait_s, or later",
	           per_ip ? "this client address already has" : "the agent already has",
	           per_ip ? h->max_held_per_ip : h->max_held,
	           per_ip ? "the limit, --max-held-per-ip" : "its limit, --max-held");
	resp->close = true;
}

void httpd_wake(struct httpd *h, uint64_t key)
{
	struct conn_state *cs;
	bool any = false;

	pthread_mutex_lock(&h->hold_lock);
	h->wake_seq++;
	for (cs = h->held; cs; cs = cs->hold_next) {
		if (cs->hold_key == key) {
			cs->hold_woken = true;
			any = true;
		}
	}
	if (any)
		bell_ring(h->hold_bell_fd);
	pthread_mutex_unlock(&h->hold_lock);
}

int httpd_held(struct httpd *h)
{
	int n;

	pthread_mutex_lock(&h->hold_lock);
	n = h->n_held;
	pthread_mutex_unlock(&h->hold_lock);
	return n;
}

/* Sleep, hold_lock held on entry and on return but not meanwhile, until the bell rings, a held
 * request's client goes away (the peer closed or reset the connection: marked hold_gone; they
 * are then closed without an answer, and stop counting against the hold limits) or until
 * (monotonic; 0: no deadline). Only this thread resumes a held connection, so the sockets it
 * polls stay open while it sleeps, and nobody else reads them while they are suspended. */
static void holds_sleep(struct httpd *h, double until)
{
	struct conn_state *cs, **who;
	struct pollfd *fds;
	int n = 0, i, r, timeout_ms = -1;

	fds = xcalloc((size_t)h->n_held + 1, sizeof(*fds));
	who = xcalloc((size_t)h->n_held + 1, sizeof(*who));
	fds[n++] = (struct pollfd){ .fd = h->hold_bell_fd, .events = POLLIN };
	for (cs = h->held; cs; cs = cs->hold_next) {
		if (cs->fd < 0 || cs->hold_gone)
			continue;
		who[n] = cs;
		fds[n++] = (struct pollfd){ .fd = cs->fd, .events = POLLRDHUP };
	}
	if (until > 0) {
		double left_ms = ceil((until - time_mono_s()) * 1000);

		timeout_ms = left_ms <= 0 ? 0 : left_ms < 3600e3 ? (int)left_ms : 3600000;
	}
	pthread_mutex_unlock(&h->hold_lock);
	r = poll(fds, (nfds_t)n, timeout_ms);
	if (r > 0 && (fds[0].revents & POLLIN))
		bell_drain(h->hold_bell_fd);
	pthread_mutex_lock(&h->hold_lock);
	for (i = 1; r > 0 && i < n; i++)
		if (fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
			who[i]->hold_gone = true;
	free(fds);
	free(who);
}

/* The hold thread: resumes held connections that were woken, whose deadline passed, whose
 * client went away, or all of them when the server stops; sleeps until the next deadline, the
 * bell or a departure otherwise. */
void *httpd_hold_main(void *arg)
{
	struct httpd *h = arg;
	struct conn_state *cs, *next, *due;
	double now, soonest;

	pthread_mutex_lock(&h->hold_lock);
	for (;;) {
		now = time_mono_s();
		soonest = 0;
		due = NULL;
		for (cs = h->held; cs; cs = next) {
			next = cs->hold_next;
			if (!h->stopping && !cs->hold_woken && !cs->hold_gone &&
			    cs->hold_deadline_mono_s > now) {
				if (!soonest || cs->hold_deadline_mono_s < soonest)
					soonest = cs->hold_deadline_mono_s;
				continue;
			}
			cs->hold_stop = h->stopping;
			cs->hold_over = cs->hold_deadline_mono_s <= now;
			held_unlink(h, cs);
			cs->hold_next = due;
			due = cs;
		}
		if (due) {
			/* Resumed, a request may complete and be freed at once: read next first. */
			pthread_mutex_unlock(&h->hold_lock);
			for (cs = due; cs; cs = next) {
				next = cs->hold_next;
				cs->hold_next = NULL;
				MHD_resume_connection(cs->conn);
			}
			pthread_mutex_lock(&h->hold_lock);
			continue;
		}
		if (h->hold_exit)
			break;
		holds_sleep(h, soonest);
	}
	pthread_mutex_unlock(&h->hold_lock);
	return NULL;
}

/* Before the daemon stops: answer every held request 503 and give the answers HOLD_DRAIN_S to
 * go out, then end the hold thread (libmicrohttpd must not stop with a connection
 * suspended). */
void httpd_holds_end(struct httpd *h)
{
	double until = time_mono_s() + HOLD_DRAIN_S;
	struct timespec ts;

	if (!h->hold_thread_started)
		return;
	pthread_mutex_lock(&h->hold_lock);
	h->stopping = true;
	bell_ring(h->hold_bell_fd);
	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
	while (h->n_holding > 0 && time_mono_s() < until)
		pthread_cond_timedwait(&h->hold_drained, &h->hold_lock, &ts);
	h->hold_exit = true;
	bell_ring(h->hold_bell_fd);
	pthread_mutex_unlock(&h->hold_lock);
	pthread_join(h->hold_thread, NULL);
	h->hold_thread_started = false;
}

/* The hold limits (see httpd_config): below the connection limits, whatever was asked. */
void httpd_holds_limit(struct httpd *h, unsigned max_conns, unsigned per_ip)
{
	unsigned top = max_conns / 4 * 3, top_ip = per_ip > 1 ? per_ip - 1 : 0;

	h->max_held = h->cfg.max_held ? h->cfg.max_held : max_conns / 2;
	if (h->max_held > top) {
		log_warn("--max-held %u lowered to %u: held requests must leave a quarter of the "
		         "%u connections free",
		         h->max_held, top, max_conns);
		h->max_held = top;
	}
	h->max_held_per_ip = h->cfg.max_held_per_ip ? h->cfg.max_held_per_ip : per_ip / 2;
	if (h->max_held_per_ip > top_ip) {
		log_warn("--max-held-per-ip %u lowered to %u: below the %u connections one client "
		         "address may have",
		         h->max_held_per_ip, top_ip, per_ip);
		h->max_held_per_ip = top_ip;
	}
}
