/* client.c -- the controller's only libcurl user: concurrent requests with retries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "fleet/client.h"
#include "log.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

struct client {
	CURLM *multi;
	double timeout_s;
	int retries;
	int running;                      /* started requests with a transfer under way */
	int waiting;                      /* started requests waiting to be retried */
	struct client_req *retries_head;  /* those, in no order */
	long attempts, connects;          /* attempts ended, new connections they opened */
	const struct client_transport *t; /* NULL: HTTP */
	struct client_req **started;      /* with t: started, not yet answered, in order */
	int nstarted, cap;
};

static bool client_global_done;

void client_connections_keep(struct client *c, long n)
{
	curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS,
	                  n > 0 ? n : (long)CLIENT_CONNECTIONS_KEPT);
}

struct client *client_new(double timeout_s, int retries, int npeers)
{
	struct client *c = xcalloc(1, sizeof(*c));

	if (!client_global_done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		client_global_done = true;
	}
	c->multi = curl_multi_init();
	if (!c->multi) {
		log_error("curl_multi_init failed");
		abort();
	}
	/* Keep a connection alive per peer, reused across rounds: libcurl's default cache (and
	 * once this one's 1 024) left a 1 024-agent fleet at 2.5 new connections per agent. */
	client_connections_keep(c, npeers + 16 > CLIENT_CONNECTIONS_KEPT ? npeers + 16
	                                                                 : CLIENT_CONNECTIONS_KEPT);
	c->timeout_s = timeout_s;
	c->retries = retries;
	return c;
}

void client_free(struct client *c)
{
	if (!c)
		return;
	curl_multi_cleanup(c->multi);
	free(c->started);
	free(c);
}

void client_req_init(struct client_req *r, const char *method, char *url, char *body,
                     const char *token)
{
	memset(r, 0, sizeof(*r));
	r->method = method;
	r->url = url;
	r->body = body;
	r->token = token;
	buf_init(&r->resp);
}

void client_req_release(struct client_req *r)
{
	if (!r)
		return;
	free(r->url);
	free(r->body);
	buf_release(&r->resp);
	r->url = r->body = NULL;
}

void client_req_describe(const struct client_req *r, char *out, size_t len)
{
	if (r->rc < 0)
		snprintf(out, len, "%s", r->error);
	else
		snprintf(out, len, "HTTP %ld", r->status);
}

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
	struct client_req *r = ud;
	size_t max = r->max_bytes ? r->max_bytes : CLIENT_ANSWER_MAX;

	if (r->resp.len + size * nmemb > max) {
		r->too_large = true; /* libcurl ends the transfer: nothing more is read */
		return 0;
	}
	buf_append(&r->resp, p, size * nmemb);
	return size * nmemb;
}

/* Whether tok may be put in an Authorization header: visible ASCII only, and it fits. */
static bool token_sendable(const char *tok)
{
	size_t i, n = strlen(tok);

	if (!n || n > 512)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)tok[i] < 0x21 || (unsigned char)tok[i] > 0x7e)
			return false;
	return true;
}

static void attempt_start(struct client *c, struct client_req *r)
{
	CURL *h = r->easy;
	struct curl_slist *hdrs = NULL;
	char auth[600];
	long connect_ms = (long)(c->timeout_s * 1000);
	double timeout_s = r->timeout_s > 0 ? r->timeout_s : c->timeout_s;

	if (!h) {
		h = curl_easy_init();
		if (!h) {
			log_error("curl_easy_init failed");
			abort();
		}
		r->easy = h;
	} else {
		curl_easy_reset(h);
	}
	if (r->headers)
		curl_slist_free_all(r->headers);
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (r->body)
		hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	/* Only the token goes into the header: one that could end the line (plan.c refuses
	 * them) is not sent at all, and the agent answers 401. */
	if (r->token && token_sendable(r->token)) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", r->token);
		hdrs = curl_slist_append(hdrs, auth);
	}
	hdrs = curl_slist_append(hdrs, "Expect:");
	r->headers = hdrs;
	buf_reset(&r->resp);
	r->too_large = false;
	curl_easy_setopt(h, CURLOPT_URL, r->url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->method);
	if (r->body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(r->body));
	} else if (!strcmp(r->method, "GET")) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_PRIVATE, r);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms < 3000 ? connect_ms : 3000L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	r->attempts++;
	r->started_wall = time_now_s();
	r->started_at = time_mono_s();
	curl_multi_add_handle(c->multi, h);
	c->running++;
}

/* Whether a finished attempt should be tried again. */
static bool attempt_retry(struct client *c, struct client_req *r, CURLcode res)
{
	bool idempotent = strcmp(r->method, "POST") != 0;

	if (r->attempts > c->retries)
		return false;
	if (res == CURLE_COULDNT_CONNECT)
		return true;
	if (!idempotent)
		return false;
	if (res != CURLE_OK)
		return res == CURLE_OPERATION_TIMEDOUT || res == CURLE_RECV_ERROR ||
		       res == CURLE_SEND_ERROR || res == CURLE_GOT_NOTHING;
	return r->status == 502 || r->status == 503 || r->status == 504;
}

void client_transport_set(struct client *c, const struct client_transport *t)
{
	c->t = t;
}

void client_start(struct client *c, struct client_req *r)
{
	r->attempts = 0;
	r->rc = 0;
	r->status = 0;
	r->error[0] = '\0';
	r->pending_retry = false;
	if (c->t) {
		c->started = xgrow(c->started, &c->cap, c->nstarted + 1, sizeof(*c->started));
		c->started[c->nstarted++] = r;
		return;
	}
	attempt_start(c, r);
}

/* client_wait through a transport: answer the first ndone started requests. */
static int transport_wait(struct client *c, struct client_req **done, int ndone)
{
	int got = 0, i;

	while (got < ndone && c->nstarted > 0) {
		struct client_req *r = c->started[0];

		c->nstarted--;
		memmove(c->started, c->started + 1, (size_t)c->nstarted * sizeof(*c->started));
		buf_reset(&r->resp);
		r->attempts = 1;
		r->started_at = time_mono_s();
		c->t->answer(c->t->ctx, r);
		r->elapsed_s = time_mono_s() - r->started_at;
		c->attempts++;
		done[got++] = r;
	}
	for (i = 0; i < got; i++)
		if (done[i]->rc < 0)
			done[i]->status = 0;
	return got;
}

static void easy_free(struct client_req *r)
{
	curl_easy_cleanup(r->easy);
	r->easy = NULL;
	curl_slist_free_all(r->headers);
	r->headers = NULL;
}

/*
 * When the peer answered, as two readings of the wall clock around it. libcurl times a
 * transfer from its own start (not before the handle was added: started_wall), sending once
 * "pre-transfer" has passed and the first byte of the answer at "start-transfer"; the transfer
 * ended no later than now, "total" after its start. So the answer was made after
 * started_wall + pretransfer and before now - (total - starttransfer): a window no wider than
 * the round trip, however long the request queued before it was sent or its end waited to be
 * read.
 */
static void answer_window(struct client_req *r, CURLcode res)
{
	curl_off_t pre = 0, first = 0, total = 0;
	double now = time_now_s();

	r->answered_after = r->answered_before = 0;
	if (res != CURLE_OK ||
	    curl_easy_getinfo(r->easy, CURLINFO_PRETRANSFER_TIME_T, &pre) != CURLE_OK ||
	    curl_easy_getinfo(r->easy, CURLINFO_STARTTRANSFER_TIME_T, &first) != CURLE_OK ||
	    curl_easy_getinfo(r->easy, CURLINFO_TOTAL_TIME_T, &total) != CURLE_OK || first < pre ||
	    total < first)
		return;
	r->answered_after = r->started_wall + (double)pre / 1e6;
	r->answered_before = now - (double)(total - first) / 1e6;
	if (r->answered_before < r->answered_after) /* clocks read apart by a step: no bound */
		r->answered_after = r->answered_before = 0;
}

/* An attempt of r ended with res: true when r ended too, false when a retry is due. */
static bool attempt_end(struct client *c, struct client_req *r, CURLcode res)
{
	long connects = 0;

	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_getinfo(r->easy, CURLINFO_NUM_CONNECTS, &connects);
	c->attempts++;
	c->connects += connects;
	r->elapsed_s = time_mono_s() - r->started_at;
	answer_window(r, res);
	curl_multi_remove_handle(c->multi, r->easy);
	c->running--;
	if (res != CURLE_OK)
		r->status = 0;
	if (attempt_retry(c, r, res)) {
		r->pending_retry = true;
		r->retry_at = time_mono_s() + 0.1 * (double)(1 << (r->attempts - 1));
		r->retry_next = c->retries_head;
		c->retries_head = r;
		c->waiting++;
		return false;
	}
	if (res != CURLE_OK && r->too_large) {
		r->rc = -E2BIG;
		buf_reset(&r->resp);
		snprintf(r->error, sizeof(r->error),
		         "the answer is larger than %zu bytes (the bound of %s %s); refused",
		         r->max_bytes ? r->max_bytes : (size_t)CLIENT_ANSWER_MAX, r->method,
		         strstr(r->url, "/api/") ? strstr(r->url, "/api/") : r->url);
	} else if (res != CURLE_OK) {
		r->rc = -EIO;
		snprintf(r->error, sizeof(r->error), "%s (after %d attempt%s)",
		         curl_easy_strerror(res), r->attempts, r->attempts == 1 ? "" : "s");
	}
	easy_free(r);
	return true;
}

/* Start the retries that are due. */
static void retries_start(struct client *c)
{
	struct client_req **pp = &c->retries_head, *r;
	double now = time_mono_s();

	while ((r = *pp)) {
		if (r->retry_at > now) {
			pp = &r->retry_next;
			continue;
		}
		*pp = r->retry_next;
		r->retry_next = NULL;
		r->pending_retry = false;
		c->waiting--;
		attempt_start(c, r);
	}
}

int client_wait(struct client *c, double max_s, struct client_req **done, int ndone)
{
	double until = time_mono_s() + max_s, now;
	int got = 0, left, still;
	CURLMsg *m;

	if (c->t)
		return transport_wait(c, done, ndone);
	for (;;) {
		curl_multi_perform(c->multi, &still);
		while (got < ndone && (m = curl_multi_info_read(c->multi, &left))) {
			char *priv;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
			if (attempt_end(c, (struct client_req *)(void *)priv, m->data.result))
				done[got++] = (struct client_req *)(void *)priv;
		}
		retries_start(c);
		now = time_mono_s();
		if (got > 0 || (c->running == 0 && c->waiting == 0) || now >= until)
			return got;
		left = (int)((until - now) * 1000) + 1;
		if (left > (c->running > 0 ? 100 : 20))
			left = c->running > 0 ? 100 : 20;
		curl_multi_poll(c->multi, NULL, 0, left, NULL);
	}
}

void client_counts(const struct client *c, long *attempts, long *connects)
{
	*attempts = c->attempts;
	*connects = c->connects;
}

void client_abort(struct client *c, struct client_req *r)
{
	struct client_req **pp;
	int i;

	for (i = 0; c->t && i < c->nstarted; i++) {
		if (c->started[i] != r)
			continue;
		c->nstarted--;
		memmove(c->started + i, c->started + i + 1,
		        (size_t)(c->nstarted - i) * sizeof(*c->started));
		return;
	}
	if (r->pending_retry) {
		for (pp = &c->retries_head; *pp && *pp != r; pp = &(*pp)->retry_next)
			;
		if (*pp)
			*pp = r->retry_next;
		r->retry_next = NULL;
		r->pending_retry = false;
		c->waiting--;
	} else if (r->easy) {
		curl_multi_remove_handle(c->multi, r->easy);
		c->running--;
	}
	if (r->easy)
		easy_free(r);
}

int client_run(struct client *c, struct client_req *reqs, int n)
{
	struct client_req **done = xcalloc((size_t)n + 1, sizeof(*done));
	int i = 0, inflight = 0;

	for (;;) {
		for (; i < n && inflight < CLIENT_PARALLEL_MAX; i++) {
			if (reqs[i].skip)
				continue;
			client_start(c, &reqs[i]);
			inflight++;
		}
		if (!inflight)
			break;
		inflight -= client_wait(c, 3600, done, inflight);
	}
	free(done);
	return 0;
}
