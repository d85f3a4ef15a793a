/* nodelist_kube.c -- nodes from kubectl get pods -o json: each Ready pod's IP, the agent's
 * port from its containers and its device from a label or an annotation. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/nodelist.h"
#include "jread.h"
#include "plan/nodelist_priv.h"
#include "xmalloc.h"
#include "banned.h"

#define DEVICE_LABEL "fleettune.io/device" /* a pod's device: a label or an annotation */

/* The line of the first "name": "pod" in text (kubectl prints metadata first), or 0. */
static int pod_line(const char *text, const char *pod)
{
	char *needle = xasprintf("\"%s\"", pod);
	const char *hit = strstr(text, needle), *c;
	int line = 1;

	free(needle);
	if (!hit)
		return 0;
	for (c = text; c < hit; c++)
		line += *c == '\n';
	return line;
}

/* The string a dotted path names in obj ("metadata.name"), or NULL. */
static const char *kube_str(json_t *obj, const char *path)
{
	json_t *v = jread_at(obj, path);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The agent's port from the pod's containers: the port named "api" (deploy/daemonset.yaml),
 * else the first containerPort; 0 for none. */
static int pod_port(json_t *pod)
{
	json_t *cs = json_object_get(json_object_get(pod, "spec"), "containers"), *c, *pt;
	size_t i, j;
	int first = 0;

	json_array_foreach(cs, i, c)
	{
		json_array_foreach(json_object_get(c, "ports"), j, pt)
		{
			json_t *num = json_object_get(pt, "containerPort");
			const char *name = kube_str(pt, "name");

			if (!json_is_integer(num))
				continue;
			if (name && !strcmp(name, "api"))
				return (int)json_integer_value(num);
			if (!first)
				first = (int)json_integer_value(num);
		}
	}
	return first;
}

static bool pod_ready(json_t *pod)
{
	json_t *conds = json_object_get(json_object_get(pod, "status"), "conditions"), *c;
	size_t i;

	json_array_foreach(conds, i, c)
	{
		const char *type = kube_str(c, "type"), *st = kube_str(c, "status");

		if (type && st && !strcmp(type, "Ready"))
			return !strcmp(st, "True");
	}
	return false;
}

int nodelist_kubectl_read(const char *text, const char *file, const struct nodelist_opts *o,
                          struct nodelist *l, struct err *e)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je), *items, *pod;
	const char *kind;
	int cap = 0, rc = 0;
	size_t i;

	if (!root)
		return inv_fail(e, file, je.line, "not JSON: %s", je.text);
	kind = kube_str(root, "kind");
	items = json_object_get(root, "items");
	if (kind && !strcmp(kind, "Pod")) {
		items = json_array();
		json_array_append(items, root);
	} else if (!json_is_array(items)) {
		rc = inv_fail(e, file, 1,
		              "JSON, but not the output of kubectl get pods -o json (no \"items\" "
		              "array, not a Pod)");
		goto out;
	} else {
		json_incref(items);
	}
	if (json_array_size(items) > NODELIST_HOSTS_MAX)
		rc = inv_fail(e, file, 0, "more than %d pods", NODELIST_HOSTS_MAX);
	json_array_foreach(items, i, pod)
	{
		if (rc)
			break;
		const char *name = kube_str(pod, "metadata.name"),
		           *ip = kube_str(pod, "status.podIP");
		const char *node = kube_str(pod, "spec.nodeName"), *podkind = kube_str(pod, "kind");
		const char *dev, *phase = kube_str(pod, "status.phase");
		int line = name ? pod_line(text, name) : 0, port;
		char port_s[16];

		dev = json_string_value(json_object_get(
		        json_object_get(json_object_get(pod, "metadata"), "labels"), DEVICE_LABEL));
		if (!dev)
			dev = json_string_value(json_object_get(
			        json_object_get(json_object_get(pod, "metadata"), "annotations"),
			        DEVICE_LABEL));
		if (!name || (podkind && strcmp(podkind, "Pod"))) {
			rc = inv_fail(e, file, line,
			              "items[%zu]: not a pod (kubectl get pods -o json)", i);
			break;
		}
		if (!ip || !pod_ready(pod)) {
			rc = inv_fail(e, file, line,
			              "items[%zu]: pod %s on node %s is not Ready (phase %s): wait "
			              "for it (kubectl rollout status) or leave it out of the list",
			              i, name, node ? node : "(none)", phase ? phase : "unknown");
			break;
		}
		if (!dev && !o->device) {
			rc = inv_fail(
			        e, file, line,
			        "items[%zu]: pod %s has no device: label it fleettune.io/device "
			        "or give a default device",
			        i, name);
			break;
		}
		port = o->port ? o->port : pod_port(pod);
		snprintf(port_s, sizeof(port_s), "%d", port ? port : NODELIST_DEFAULT_PORT);
		nodelist_node_add(l, &cap, xstrdup(node ? node : name),
		                  nodelist_url_make(o->scheme ? o->scheme : "http", ip, port_s),
		                  nodelist_device_take(dev ? dev : o->device),
		                  o->token_file ? xstrdup(o->token_file) : NULL, line);
	}
	json_decref(items);
	if (!rc && !l->n)
		rc = inv_fail(e, file, 0, "no pods in the list (is the label selector right?)");
out:
	json_decref(root);
	return rc;
}
