/* httpd_slow.c -- slow work off the HTTP threads: requests whose handler would wait on a tool
 * (mkfs's dry run) run on one thread of their own, their connections suspended meanwhile. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "http/httpd.h"
#include "http/httpd_priv.h"
#include "log.h"
#include "timeutil.h"
#include "banned.h"

void httpd_slow_release(struct conn_state *cs)
{
	http_req_release(&cs->slow_req);
	memset(&cs->slow_req, 0, sizeof(cs->slow_req));
	cs->slow_fn = NULL;
	free(cs->slow_resp.body);
	free(cs->slow_resp.location);
	memset(&cs->slow_resp, 0, sizeof(cs->slow_resp));
	cs->slow_done = false;
}

/* The answer for cs is ready (or refused): keep it and resume the connection, whose next
 * on_request sends it. */
static void slow_finish(struct conn_state *cs)
{
	http_req_release(&cs->slow_req);
	memset(&cs->slow_req, 0, sizeof(cs->slow_req));
	cs->slow_fn = NULL;
	cs->slow_done = true;
	MHD_resume_connection(cs->conn);
}

/* The slow-work thread: one request at a time, oldest first; a request that waited past
 * HTTPD_SLOW_WAIT_MAX_S is answered 503 without running. */
static void *slow_main(void *arg)
{
	struct httpd *h = arg;
	struct conn_state *cs;
	double waited;

	pthread_mutex_lock(&h->slow_lock);
	for (;;) {
		while (!h->slow_head && !h->slow_stop)
			pthread_cond_wait(&h->slow_cond, &h->slow_lock);
		if (!h->slow_head)
			break;
		cs = h->slow_head;
		h->slow_head = cs->slow_next;
		if (!h->slow_head)
			h->slow_tail = NULL;
		cs->slow_next = NULL;
		h->n_slow--;
		pthread_mutex_unlock(&h->slow_lock);
		memset(&cs->slow_resp, 0, sizeof(cs->slow_resp));
		waited = time_mono_s() - cs->slow_queued_mono_s;
		if (h->slow_stop) {
			http_error(&cs->slow_resp, 503, ERR_SHUTTING_DOWN,
			           "the agent is shutting down; ask again once it is back");
		} else if (waited > HTTPD_SLOW_WAIT_MAX_S) {
			http_error(&cs->slow_resp, 503, ERR_BUSY,
			           "this request waited %.0f s behind others for the agent's "
			           "slow-work "
			           "thread (mkfs dry runs): ask again later",
			           waited);
		} else {
			cs->slow_req.on_worker = true;
			cs->slow_fn(h->cfg.app, &cs->slow_req, &cs->slow_resp);
			if (!cs->slow_resp.status)
				http_error(&cs->slow_resp, 500, ERR_INTERNAL,
				           "handler produced no response on the slow-work thread");
		}
		slow_finish(cs);
		pthread_mutex_lock(&h->slow_lock);
	}
	pthread_mutex_unlock(&h->slow_lock);
	return NULL;
}

bool httpd_slow_start(struct httpd *h)
{
	if (pthread_create(&h->slow_thread, NULL, slow_main, h))
		return false;
	h->slow_thread_started = true;
	return true;
}

bool httpd_slow_queue(struct httpd *h, struct MHD_Connection *c, struct conn_state *cs)
{
	bool ok;

	pthread_mutex_lock(&h->slow_lock);
	ok = h->slow_thread_started && !h->slow_stop && h->n_slow < HTTPD_SLOW_QUEUE_MAX;
	if (ok) {
		cs->conn = c;
		cs->slow_queued_mono_s = time_mono_s();
		cs->slow_next = NULL;
		if (h->slow_tail)
			h->slow_tail->slow_next = cs;
		else
			h->slow_head = cs;
		h->slow_tail = cs;
		h->n_slow++;
		/* Suspended before the worker can resume it: the lock is held until then. */
		MHD_suspend_connection(c);
		pthread_cond_signal(&h->slow_cond);
	}
	pthread_mutex_unlock(&h->slow_lock);
	return ok;
}

void httpd_slow_end(struct httpd *h)
{
	if (!h->slow_thread_started)
		return;
	pthread_mutex_lock(&h->slow_lock);
	h->slow_stop = true;
	pthread_cond_signal(&h->slow_cond);
	pthread_mutex_unlock(&h->slow_lock);
	pthread_join(h->slow_thread, NULL);
	h->slow_thread_started = false;
}
