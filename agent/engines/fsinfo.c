/* fsinfo.c -- parsers of xfs_info / mkfs.xfs summaries, tune2fs -l and mke2fs output, and
 * /proc/self/mountinfo lines. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fsinfo.h"
#include "num.h"
#include "xmalloc.h"
#include "banned.h"

void fs_figures_set(struct fs_figures *fg, const char *name, const char *value, bool number)
{
	struct fs_figure *f = NULL;
	int i;

	for (i = 0; i < fg->n; i++)
		if (!strcmp(fg->f[i].name, name))
			f = &fg->f[i];
	if (!f) {
		if (fg->n >= FS_FIGURES_MAX)
			return;
		f = &fg->f[fg->n++];
		snprintf(f->name, sizeof(f->name), "%s", name);
	}
	snprintf(f->value, sizeof(f->value), "%s", value);
	f->number = number;
}

const struct fs_figure *fs_figures_get(const struct fs_figures *fg, const char *name)
{
	int i;

	for (i = 0; i < fg->n; i++)
		if (!strcmp(fg->f[i].name, name))
			return &fg->f[i];
	return NULL;
}

/* An integer figure, for the derived ones; false if absent or not a number. */
static bool figure_u64(const struct fs_figures *fg, const char *name, uint64_t *v)
{
	const struct fs_figure *f = fs_figures_get(fg, name);
	int64_t n;

	if (!f || !f->number || num_parse_kernel_i64(f->value, &n) || n < 0)
		return false;
	*v = (uint64_t)n;
	return true;
}

static void figure_product(struct fs_figures *fg, const char *name, const char *a, const char *b)
{
	uint64_t x, y;
	char v[32];

	if (!figure_u64(fg, a, &x) || !figure_u64(fg, b, &y) || (x && y > UINT64_MAX / x))
		return;
	snprintf(v, sizeof(v), "%" PRIu64, x * y);
	fs_figures_set(fg, name, v, true);
}

/* ---- xfs ---- */

/* (section, key) of an xfs summary -> figure. key NULL: the section's own value. */
static const struct {
	const char *section, *key, *figure;
	bool number;
} xfs_map[] = {
	{ "meta-data", "isize", "inode_size_bytes", true },
	{ "meta-data", "agcount", "agcount", true },
	{ "meta-data", "agsize", "agsize_blocks", true },
	{ "meta-data", "sectsz", "sector_size_bytes", true },
	{ "meta-data", "attr", "attr", true },
	{ "meta-data", "projid32bit", "projid32bit", true },
	{ "meta-data", "crc", "crc", true },
	{ "meta-data", "finobt", "finobt", true },
	{ "meta-data", "sparse", "sparse", true },
	{ "meta-data", "rmapbt", "rmapbt", true },
	{ "meta-data", "reflink", "reflink", true },
	{ "meta-data", "bigtime", "bigtime", true },
	{ "meta-data", "inobtcount", "inobtcount", true },
	{ "meta-data", "nrext64", "nrext64", true },
	{ "data", "bsize", "block_size_bytes", true },
	{ "data", "blocks", "data_blocks", true },
	{ "data", "imaxpct", "imaxpct", true },
	{ "data", "sunit", "sunit_blocks", true },
	{ "data", "swidth", "swidth_blocks", true },
	{ "naming", NULL, "naming", false },
	{ "naming", "bsize", "dir_block_size_bytes", true },
	{ "naming", "ascii-ci", "ascii_ci", true },
	{ "naming", "ftype", "ftype", true },
	{ "log", NULL, "log", false },
	{ "log", "bsize", "log_block_size_bytes", true },
	{ "log", "blocks", "log_blocks", true },
	{ "log", "version", "log_version", true },
	{ "log", "sectsz", "log_sector_size_bytes", true },
	{ "log", "sunit", "log_sunit_blocks", true },
	{ "log", "lazy-count", "lazy_count", true },
	{ "realtime", NULL, "realtime", false },
};

static void xfs_put(struct fs_figures *out, const char *section, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < sizeof(xfs_map) / sizeof(xfs_map[0]); i++) {
		if (strcmp(xfs_map[i].section, section) ||
		    (key ? !xfs_map[i].key || strcmp(xfs_map[i].key, key) : xfs_map[i].key != NULL))
			continue;
		if (xfs_map[i].number && !num_is_plain_int(value))
			return;
		fs_figures_set(out, xfs_map[i].figure, value, xfs_map[i].number);
		return;
	}
}

/* One line of the summary: "data     =                       bsize=4096   blocks=262144,". */
static void xfs_line(struct fs_figures *out, char *line, char *section, size_t section_len)
{
	char *eq = strchr(line, '='), *p, *tok, *save = NULL, own[128] = "";
	bool seen_kv = false;

	if (!eq)
		return;
	if (line[0] != ' ' && line[0] != '\t') {
		size_t n = (size_t)(eq - line);

		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		snprintf(section, section_len, "%.*s", (int)n, line);
	}
	if (!section[0])
		return;
	p = eq + 1;
	for (tok = strtok_r(p, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		char *kv = strchr(tok, '=');

		if (!kv) {
			if (!seen_kv) /* the section's own value: "internal log", "version 2" */
				snprintf(own + strlen(own), sizeof(own) - strlen(own), "%s%s",
				         own[0] ? " " : "", tok);
			continue; /* else a unit: "blks" */
		}
		seen_kv = true;
		*kv = '\0';
		xfs_put(out, section, tok, kv + 1);
	}
	if (own[0] && eq > line && line[0] != ' ' && line[0] != '\t') {
		if (!strcmp(section, "naming") && !strncmp(own, "version ", 8))
			xfs_put(out, section, NULL, own + 8);
		else if (strcmp(section, "meta-data")) /* meta-data's is the device path */
			xfs_put(out, section, NULL, own);
	}
}

int fsinfo_xfs_parse(const char *text, struct fs_figures *out)
{
	char section[32] = "", line[512];
	const char *p = text, *end;

	memset(out, 0, sizeof(*out));
	if (!text)
		return 0;
	for (; *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
		/* Only the summary's lines: a section at the start, or "   =" continuing one. */
		if (line[0] != ' ' && line[0] != '\t' &&
		    !(!strncmp(line, "meta-data=", 10) || !strncmp(line, "data ", 5) ||
		      !strncmp(line, "naming ", 7) || !strncmp(line, "log ", 4) ||
		      !strncmp(line, "realtime ", 9))) {
			section[0] = '\0';
			continue;
		}
		if ((line[0] == ' ' || line[0] == '\t') && line[strspn(line, " \t")] != '=')
			continue;
		xfs_line(out, line, section, sizeof(section));
	}
	if (!fs_figures_get(out, "inode_size_bytes") || !fs_figures_get(out, "block_size_bytes")) {
		out->n = 0;
		return 0;
	}
	figure_product(out, "sunit_bytes", "sunit_blocks", "block_size_bytes");
	figure_product(out, "swidth_bytes", "swidth_blocks", "block_size_bytes");
	figure_product(out, "log_size_bytes", "log_blocks", "log_block_size_bytes");
	figure_product(out, "data_size_bytes", "data_blocks", "block_size_bytes");
	return out->n;
}

/* ---- ext4 ---- */

static const struct {
	const char *key, *figure;
	bool number;
} tune2fs_map[] = {
	{ "Block size", "block_size_bytes", true },
	{ "Block count", "block_count", true },
	{ "Inode size", "inode_size_bytes", true },
	{ "Inode count", "inode_count", true },
	{ "Reserved block count", "reserved_blocks", true },
	{ "Blocks per group", "blocks_per_group", true },
	{ "Inodes per group", "inodes_per_group", true },
	{ "RAID stride", "raid_stride_blocks", true },
	{ "RAID stripe width", "raid_stripe_width_blocks", true },
	{ "Flex block group size", "flex_bg_size", true },
	{ "Filesystem features", "features", false },
	{ "Default mount options", "default_mount_options", false },
	{ "Errors behavior", "errors_behavior", false },
	{ "Journal backup", "journal_backup", false },
};

/* "  value  " -> "value" in place. */
static char *trim(char *s)
{
	char *end;

	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static void tune2fs_parse(const char *text, struct fs_figures *out)
{
	char line[1024], *colon, *val;
	const char *p = text, *end;
	size_t i;

	for (; *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		val = trim(colon + 1);
		for (i = 0; i < sizeof(tune2fs_map) / sizeof(tune2fs_map[0]); i++) {
			if (strcmp(line, tune2fs_map[i].key))
				continue;
			if (!tune2fs_map[i].number || num_is_plain_int(val))
				fs_figures_set(out, tune2fs_map[i].figure, val,
				               tune2fs_map[i].number);
			break;
		}
	}
}

static void mke2fs_parse(const char *text, struct fs_figures *out)
{
	const char *p;
	unsigned long long blocks, inodes, journal;
	char unit[16], v[32];
	uint64_t bs;

	p = strstr(text, "Creating filesystem with ");
	if (p && sscanf(p, "Creating filesystem with %llu %15s blocks and %llu inodes", &blocks,
	                unit, &inodes) == 3) {
		snprintf(v, sizeof(v), "%llu", blocks);
		if (!fs_figures_get(out, "block_count"))
			fs_figures_set(out, "block_count", v, true);
		snprintf(v, sizeof(v), "%llu", inodes);
		if (!fs_figures_get(out, "inode_count"))
			fs_figures_set(out, "inode_count", v, true);
		if (num_parse_size(unit, &bs) == 0 && !fs_figures_get(out, "block_size_bytes")) {
			snprintf(v, sizeof(v), "%" PRIu64, bs);
			fs_figures_set(out, "block_size_bytes", v, true);
		}
	}
	p = strstr(text, "Creating journal (");
	if (p && sscanf(p, "Creating journal (%llu blocks)", &journal) == 1) {
		snprintf(v, sizeof(v), "%llu", journal);
		fs_figures_set(out, "journal_blocks", v, true);
	}
}

int fsinfo_ext4_parse(const char *tune2fs_text, const char *mke2fs_text, struct fs_figures *out)
{
	memset(out, 0, sizeof(*out));
	if (tune2fs_text)
		tune2fs_parse(tune2fs_text, out);
	if (mke2fs_text)
		mke2fs_parse(mke2fs_text, out);
	figure_product(out, "journal_size_bytes", "journal_blocks", "block_size_bytes");
	figure_product(out, "raid_stride_bytes", "raid_stride_blocks", "block_size_bytes");
	figure_product(out, "raid_stripe_width_bytes", "raid_stripe_width_blocks",
	               "block_size_bytes");
	return out->n;
}

/* ---- mountinfo ---- */

/* Copy a mountinfo field, undoing the kernel's octal escapes (\040 space, \011 tab, \012, \134). */
static void unescape(const char *s, size_t n, char *out, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 1 < len; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			out[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
			                  (s[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

/* Split one mountinfo line (without its newline) into out; 0 or -1 if malformed. */
static int mountinfo_line(const char *line, size_t len, struct fs_mountinfo *out)
{
	const char *f[32];
	size_t flen[32];
	const char *p = line, *end = line + len;
	int n = 0, dash = -1, i;

	while (p < end && n < 32) {
		const char *q = p;

		while (q < end && *q != ' ')
			q++;
		f[n] = p;
		flen[n] = (size_t)(q - p);
		if (flen[n] == 1 && *p == '-' && n >= 6 && dash < 0)
			dash = n;
		n++;
		p = q < end ? q + 1 : q;
	}
	if (dash < 0 || n < dash + 4)
		return -1;
	memset(out, 0, sizeof(*out));
	if (sscanf(f[2], "%u:%u", &out->major, &out->minor) != 2)
		return -1;
	unescape(f[4], flen[4], out->mount_point, sizeof(out->mount_point));
	snprintf(out->mount_opts, sizeof(out->mount_opts), "%.*s", (int)flen[5], f[5]);
	snprintf(out->fstype, sizeof(out->fstype), "%.*s", (int)flen[dash + 1], f[dash + 1]);
	unescape(f[dash + 2], flen[dash + 2], out->source, sizeof(out->source));
	i = dash + 3;
	snprintf(out->super_opts, sizeof(out->super_opts), "%.*s", (int)flen[i], f[i]);
	return 0;
}

int fsinfo_mountinfo_find(const char *text, const char *mount_point, struct fs_mountinfo *out)
{
	struct fs_mountinfo *m = xmalloc(sizeof(*m));
	const char *p = text, *end;
	int found = 0;

	if (!text) {
		free(m);
		return 0;
	}
	for (; *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		if (mountinfo_line(p, (size_t)(end - p), m) == 0 &&
		    !strcmp(m->mount_point, mount_point)) {
			*out = *m; /* the later line is the one on top */
			found = 1;
		}
	}
	free(m);
	return found;
}

bool fsinfo_mountinfo_has_dev(const char *text, unsigned major, unsigned minor, char *where,
                              size_t where_len)
{
	struct fs_mountinfo *m = xmalloc(sizeof(*m));
	const char *p = text, *end;
	bool found = false;

	if (!text) {
		free(m);
		return false;
	}
	for (; *p && !found; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "\n");
		if (mountinfo_line(p, (size_t)(end - p), m) == 0 && m->major == major &&
		    m->minor == minor) {
			found = true;
			if (where)
				snprintf(where, where_len, "%s", m->mount_point);
		}
	}
	free(m);
	return found;
}
