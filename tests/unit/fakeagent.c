/* fakeagent.c -- a minimal HTTP/1.1 server answering like a fleettune agent, for tests, and
 * the same agents as a fleet in-process (the controller's transport seam). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fakeagent.h"
#include "xmalloc.h"

/* Read one request from c into r; false on a broken connection. */
static bool request_read(int c, struct fake_req *r)
{
	struct buf in = BUF_INIT;
	char chunk[4096], *end, *cl;
	size_t want = 0, head = 0;
	ssize_t n;
	bool ok = false;

	for (;;) {
		if (head && in.len >= head + want)
			break;
		n = read(c, chunk, sizeof(chunk));
		if (n <= 0)
			goto out;
		buf_append(&in, chunk, (size_t)n);
		if (!head && (end = strstr(in.data, "\r\n\r\n"))) {
			head = (size_t)(end - in.data) + 4;
			for (cl = in.data; cl < end; cl = strchr(cl, '\n') + 1)
				if (!strncasecmp(cl, "content-length:", 15))
					want = strtoul(cl + 15, NULL, 10);
		}
	}
	if (sscanf(in.data, "%7s %255s", r->method, r->path) != 2)
		goto out;
	r->body = xstrndup(in.data + head, want);
	r->head = xstrndup(in.data, head - 2);
	ok = true;
out:
	buf_release(&in);
	return ok;
}

int fake_agent_answer(struct fake_agent *a, struct fake_req *r, struct buf *out)
{
	int status = (a->handle ? a->handle : fake_agent_default)(a, r, out);

	/* Recorded before the answer leaves, so a test that got it sees it. */
	pthread_mutex_lock(&a->lock);
	if (a->nreqs < FAKE_REQS_MAX) {
		a->reqs[a->nreqs++] = *r;
	} else {
		free(r->body);
		free(r->head);
	}
	pthread_mutex_unlock(&a->lock);
	return status;
}

static void *serve(void *arg)
{
	struct fake_agent *a = arg;

	for (;;) {
		int c = accept(a->fd, NULL, NULL), status;
		struct fake_req r = { 0 };
		struct buf out = BUF_INIT, resp = BUF_INIT;

		if (c < 0)
			return NULL;
		if (request_read(c, &r)) {
			status = fake_agent_answer(a, &r, &out);
			buf_printf(&resp,
			           "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
			           "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
			           status, out.len, out.data ? out.data : "");
			if (write(c, resp.data, resp.len) < 0)
				perror("fakeagent write");
		}
		buf_release(&out);
		buf_release(&resp);
		close(c);
	}
}

void fake_agent_start(struct fake_agent *a)
{
	struct sockaddr_in sa = { 0 };
	socklen_t len = sizeof(sa);

	pthread_mutex_init(&a->lock, NULL);
	a->fd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(a->fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(a->fd, 128)) {
		perror("fakeagent bind");
		abort();
	}
	getsockname(a->fd, (struct sockaddr *)&sa, &len);
	a->port = ntohs(sa.sin_port);
	snprintf(a->url, sizeof(a->url), "http://127.0.0.1:%d", a->port);
	pthread_create(&a->thread, NULL, serve, a);
}

void fake_agent_inproc(struct fake_agent *a, const char *url)
{
	pthread_mutex_init(&a->lock, NULL);
	a->fd = -1;
	snprintf(a->url, sizeof(a->url), "%s", url);
}

void fake_agent_stop(struct fake_agent *a)
{
	int i;

	if (a->fd >= 0) {
		shutdown(a->fd, SHUT_RDWR);
		pthread_join(a->thread, NULL);
		close(a->fd);
	}
	for (i = 0; i < a->nreqs; i++) {
		free(a->reqs[i].body);
		free(a->reqs[i].head);
	}
	a->nreqs = 0;
	pthread_mutex_destroy(&a->lock);
}

int fake_agent_default(struct fake_agent *a, const struct fake_req *r, struct buf *out)
{
	if (!strcmp(r->method, "GET") && !strcmp(r->path, "/api/v1/health")) {
		buf_printf(out,
		           "{\"status\":\"ok\",\"version\":\"%s\",\"node\":\"%s\",\"uptime_s\":5",
		           a->version ? a->version : "0.2.0", a->node ? a->node : "fake");
		if (!a->old)
			buf_printf(out, ",\"features\":[\"dry_run\",\"strict_query\"%s%s]",
			           a->lanes ? ",\"device_lanes\"" : "",
			           a->fio_file ? ",\"fio_file\"" : "");
		buf_puts(out, "}");
		return 200;
	}
	if (!strcmp(r->method, "GET") && !strcmp(r->path, "/api/v1/devices")) {
		buf_printf(out,
		           "{\"devices\":[{\"name\":\"%s\",\"size_bytes\":1073741824,"
		           "\"rotational\":false,\"scheduler\":\"none\",\"writable\":true}",
		           a->device ? a->device : "loop0");
		if (a->device2)
			buf_printf(out,
			           ",{\"name\":\"%s\",\"size_bytes\":1073741824,"
			           "\"rotational\":false,\"scheduler\":\"none\",\"writable\":true}",
			           a->device2);
		buf_puts(out, "]}");
		return 200;
	}
	buf_printf(out, "{\"error\":{\"code\":\"not_found\",\"message\":\"no route %s %s\"}}",
	           r->method, r->path);
	return 404;
}

int fake_agent_count(struct fake_agent *a, const char *method, const char *prefix)
{
	int i, n = 0;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nreqs; i++)
		if (!strcmp(a->reqs[i].method, method) &&
		    !strncmp(a->reqs[i].path, prefix, strlen(prefix)))
			n++;
	pthread_mutex_unlock(&a->lock);
	return n;
}

/* The transport's answer: the agent whose url begins r's URL, its handler. */
static void fleet_answer(void *ctx, struct client_req *r)
{
	struct fake_fleet *ff = ctx;
	struct fake_req q = { 0 };
	struct buf head = BUF_INIT;
	size_t len;
	int i;

	for (i = 0; i < ff->n; i++) {
		len = strlen(ff->agents[i]->url);
		if (!strncmp(r->url, ff->agents[i]->url, len) && r->url[len] == '/')
			break;
	}
	if (i == ff->n || ff->down[i]) {
		r->rc = -ECONNREFUSED;
		r->status = 0;
		snprintf(r->error, sizeof(r->error), "Could not connect to server (fake fleet)");
		return;
	}
	snprintf(q.method, sizeof(q.method), "%s", r->method);
	snprintf(q.path, sizeof(q.path), "%s", r->url + len);
	q.body = xstrdup(r->body ? r->body : "");
	buf_printf(&head, "%s %s HTTP/1.1\r\nHost: fake\r\n", r->method, q.path);
	if (r->token)
		buf_printf(&head, "Authorization: Bearer %s\r\n", r->token);
	q.head = buf_detach(&head, NULL);
	r->status = fake_agent_answer(ff->agents[i], &q, &r->resp);
}

void fake_fleet_init(struct fake_fleet *ff, struct fake_agent **agents, int n)
{
	ff->t.answer = fleet_answer;
	ff->t.ctx = ff;
	ff->agents = agents;
	ff->n = n;
	ff->down = xcalloc((size_t)n + 1, sizeof(bool));
}

void fake_fleet_release(struct fake_fleet *ff)
{
	free(ff->down);
	ff->down = NULL;
}
