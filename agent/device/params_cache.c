/* params_cache.c -- a small round-robin cache of rendered GET params bodies per device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/params_cache.h"
#include "xmalloc.h"
#include "banned.h"

void params_cache_init(struct params_cache *c, int ttl_ms)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->ttl_s = ttl_ms / 1000.0;
}

void params_cache_release(struct params_cache *c)
{
	int i;

	for (i = 0; i < PARAMS_CACHE_SLOTS; i++) {
		free(c->slot[i].body);
		c->slot[i].body = NULL;
	}
	pthread_mutex_destroy(&c->lock);
}

char *params_cache_get(struct params_cache *c, const char *dev, unsigned long gen,
                       double now_mono_s)
{
	char *body = NULL;
	int i;

	if (c->ttl_s <= 0)
		return NULL;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < PARAMS_CACHE_SLOTS; i++) {
		if (c->slot[i].body && !strcmp(c->slot[i].dev, dev) &&
		    c->slot[i].generation == gen && now_mono_s - c->slot[i].at_mono_s < c->ttl_s) {
			body = xstrdup(c->slot[i].body);
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return body;
}

void params_cache_put(struct params_cache *c, const char *dev, unsigned long gen, double now_mono_s,
                      const char *body)
{
	int i;

	if (c->ttl_s <= 0)
		return;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < PARAMS_CACHE_SLOTS; i++)
		if (c->slot[i].body && !strcmp(c->slot[i].dev, dev))
			break;
	if (i == PARAMS_CACHE_SLOTS) {
		i = c->next;
		c->next = (c->next + 1) % PARAMS_CACHE_SLOTS;
	}
	free(c->slot[i].body);
	snprintf(c->slot[i].dev, sizeof(c->slot[i].dev), "%s", dev);
	c->slot[i].body = xstrdup(body);
	c->slot[i].generation = gen;
	c->slot[i].at_mono_s = now_mono_s;
	pthread_mutex_unlock(&c->lock);
}
