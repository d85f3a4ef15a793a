/* report_nodes.c -- the fleet's nodes in words: a failed pre-flight, `nodes` (health, device,
 * what it is, parameters, pre-flight) and what `apply` read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/fsparam.h"
#include "render/report.h"
#include "xmalloc.h"
#include "banned.h"

void report_preflight_failed(const struct preflight *pf, struct buf *out)
{
	buf_printf(out, "pre-flight failed, nothing was changed:\n%s", pf->problems.data);
}

/* "  is: model=ST300 firmware=2.1 transport=sata ... kernel=6.1.0": every identity field
 * the node's agent reported. */
static void identity_line(const struct node_info *ni, struct buf *out)
{
	int f, n = 0;

	for (f = 0; f < IDF_N; f++)
		if (ni->identity[f])
			buf_printf(out, "%s%s=%s", n++ ? " " : "  is: ", identity_field_names[f],
			           ni->identity[f]);
	buf_puts(out, n ? "\n" : "  is: (the agent reports no identity)\n");
}

void report_nodes(const struct plan *p, const struct preflight *pf, struct buf *out)
{
	int i, j, k;

	for (i = 0; i < p->nnodes; i++) {
		const struct node_info *ni = &pf->info[i];

		buf_printf(out, "%s  %s  ", p->nodes[i].name, p->nodes[i].url);
		if (!ni->ok) {
			buf_printf(out, "DOWN: %s\n", ni->err.msg);
			continue;
		}
		buf_printf(out, "ok  fleettune-agent %s  node \"%s\"  up %.0f s\n", ni->version,
		           ni->node, ni->uptime_s);
		if (!ni->devices_read) {
			buf_printf(out, "  device %s: cannot read the device list: %s\n",
			           p->nodes[i].device, ni->err.msg);
			continue;
		}
		if (!ni->dev_found) {
			buf_printf(out, "  device %s: not found%s%s\n", p->nodes[i].device,
			           ni->err.msg[0] ? ": " : "", ni->err.msg);
			continue;
		}
		buf_printf(out, "  device %s: %.1f GiB, %s\n", p->nodes[i].device,
		           (double)ni->dev_size_bytes / (1 << 30),
		           ni->dev_writable ? "writable" : "read-only (not in --allow-device)");
		identity_line(ni, out);
		for (j = 0, k = 0; j < ni->nparams; j++) {
			const struct param_info *pi = &ni->params[j];

			if (!pi->writable)
				continue;
			buf_printf(out, "%s%s=%s", k % 5 ? "  " : "    ", pi->name, pi->value);
			if (++k % 5 == 0)
				buf_puts(out, "\n");
		}
		if (k % 5)
			buf_puts(out, "\n");
		buf_printf(out, "    (%d writable parameters of %d)\n", k, ni->nparams);
	}
	if (pf->nproblems)
		buf_printf(out, "pre-flight for this plan would fail:\n%s", pf->problems.data);
	else
		buf_printf(out,
		           "every agent validated %d configuration%s and the job (dry runs)\n"
		           "pre-flight for this plan: ok\n",
		           pf->nconfigs, pf->nconfigs == 1 ? "" : "s");
}

/* A configuration's fs.* values are not applied: say so, and what to run. */
static void fs_not_applied(const struct plan *p, const struct config *cfg, struct buf *out)
{
	struct config all = p->baseline; /* the values cfg leaves out are the baseline's */
	struct fsparam_fs fs;

	if (!fsparam_any(cfg))
		return;
	config_merge(&all, cfg);
	fsparam_fs_of(p, &all, &fs);
	buf_printf(out,
	           "not applied: the filesystem (fs.type=%s fs.mkfs=%s fs.mount=%s) is made "
	           "by jobs; run mkfs.%s %s%s/dev/DEVICE and mount -o %s yourself (export "
	           "prints the lines)\n",
	           fs.type, fs.mkfs, fs.mount, fs.type, fs.mkfs, fs.mkfs[0] ? " " : "",
	           fs.mount[0] ? fs.mount : "defaults");
}

void report_apply_each(const struct plan *p, const struct config *const *cfgs, char *const *notes,
                       const struct config *applied, const unsigned *adjusted,
                       const struct fleet_result *res, struct buf *out)
{
	int i, j;

	for (i = 0; i < p->nnodes; i++) {
		buf_printf(out, "%s %s: ", p->nodes[i].name, p->nodes[i].device);
		if (!cfgs[i]) {
			buf_printf(out, "not applied: %s\n", notes && notes[i] ? notes[i] : "");
			continue;
		}
		if (res[i].failed) {
			buf_printf(out, "FAILED: %s (nothing changed on this node)\n",
			           res[i].err.msg);
			continue;
		}
		for (j = 0; j < applied[i].n; j++) {
			const struct setting *req = config_get(cfgs[i], applied[i].s[j].name);

			buf_printf(out, "%s%s=", j ? " " : "", applied[i].s[j].name);
			if (adjusted[i] & (1u << j))
				buf_printf(out, "%s\u2192%s", req ? req->value : "?",
				           applied[i].s[j].value);
			else
				buf_puts(out, applied[i].s[j].value);
		}
		if (notes && notes[i])
			buf_printf(out, "  (%s)", notes[i]);
		buf_puts(out, "\n");
	}
	for (i = 0; i < p->nnodes; i++) {
		for (j = 0; j < i && cfgs[j] != cfgs[i]; j++)
			;
		if (cfgs[i] && j == i) /* each configuration's filesystem once */
			fs_not_applied(p, cfgs[i], out);
	}
}

void report_apply(const struct plan *p, const struct config *cfg, const struct config *applied,
                  const unsigned *adjusted, const struct fleet_result *res, struct buf *out)
{
	const struct config **cfgs = xcalloc((size_t)p->nnodes + 1, sizeof(*cfgs));
	int i;

	for (i = 0; i < p->nnodes; i++)
		cfgs[i] = cfg;
	report_apply_each(p, cfgs, NULL, applied, adjusted, res, out);
	free(cfgs);
}
