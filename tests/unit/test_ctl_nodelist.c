/* test_ctl_nodelist.c -- node lists: hosts files, Ansible INI and YAML inventories (groups,
 * children, variable precedence, ranges), kubectl pod JSON, format detection, and errors that
 * name the line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/nodelist.h"
#include "plan/nodelist_read.h"
#include "testutil.h"

static struct nodelist parse_ok(const char *text, const struct nodelist_opts *o)
{
	struct nodelist l;
	struct err e = { 0 };
	int rc = nodelist_parse(text, "list", "/etc/ft", o, &l, &e);

	if (rc)
		fail_msg("nodelist_parse: %s", e.msg);
	return l;
}

/* The error message of a text that must be refused. */
static const char *parse_err(const char *text, const struct nodelist_opts *o)
{
	static struct err e;
	struct nodelist l;

	memset(&e, 0, sizeof(e));
	assert_int_equal(nodelist_parse(text, "list", NULL, o, &l, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_NODES);
	assert_int_equal(l.n, 0);
	return e.msg;
}

static void node_is(const struct nodelist *l, int i, const char *name, const char *url,
                    const char *dev)
{
	assert_true(i < l->n);
	assert_string_equal(l->nodes[i].name, name);
	assert_string_equal(l->nodes[i].url, url);
	assert_string_equal(l->nodes[i].device, dev);
}

static void test_hosts_file(void **state)
{
	struct nodelist_opts o = { .device = "sdb", .token_file = "/etc/ft/token" };
	struct nodelist l;

	(void)state;
	l = parse_ok("# fio --client host list\n"
	             "node1 http://10.0.0.1:7070 sda\n"
	             "\n"
	             "storage2.example.com\n"
	             "10.0.0.3:7071 nvme0n1   # a comment\n"
	             "10.0.0.4,8765\n"
	             "[fe80::1]:7072 /dev/sdc\n"
	             "node6 https://node6:7443\n",
	             &o);
	assert_int_equal(l.format, NODELIST_HOSTS);
	assert_int_equal(l.n, 6);
	node_is(&l, 0, "node1", "http://10.0.0.1:7070", "sda");
	node_is(&l, 1, "storage2.example.com", "http://storage2.example.com:7070", "sdb");
	node_is(&l, 2, "10.0.0.3", "http://10.0.0.3:7071", "nvme0n1");
	node_is(&l, 3, "10.0.0.4", "http://10.0.0.4:8765", "sdb");
	node_is(&l, 4, "fe80::1", "http://[fe80::1]:7072", "sdc");
	node_is(&l, 5, "node6", "https://node6:7443", "sdb");
	assert_string_equal(l.nodes[0].token_file, "/etc/ft/token");
	assert_int_equal(l.nodes[0].line, 2);
	assert_int_equal(l.nodes[4].line, 7);
	nodelist_release(&l);

	/* Two agents on one host (elbencho's host:port lists): names stay unique. */
	o.port = 9000;
	o.scheme = "https";
	l = parse_ok("127.0.0.1:7071\n127.0.0.1:7072\nbox\n", &o);
	node_is(&l, 0, "127.0.0.1-7071", "https://127.0.0.1:7071", "sdb");
	node_is(&l, 1, "127.0.0.1-7072", "https://127.0.0.1:7072", "sdb");
	node_is(&l, 2, "box", "https://box:9000", "sdb");
	nodelist_release(&l);
}

/* A line may name its node's own token file (issue 31 #20): the last column, relative to the
 * list's directory; lines without one get the default. */
static void test_hosts_token_files(void **state)
{
	struct nodelist_opts o = { .device = "sdb", .token_file = "/etc/ft/token" };
	struct nodelist l;
	struct err e = { 0 };

	(void)state;
	assert_int_equal(nodelist_parse("n1 http://10.0.0.1:7070 sda n1.token\n"
	                                "10.0.0.2:7070 sdc /etc/ft/n2.token\n"
	                                "n3 http://10.0.0.3:7070 sdd\n"
	                                "10.0.0.4\n",
	                                "list", "/srv/lists", &o, &l, &e),
	                 0);
	assert_int_equal(l.n, 4);
	node_is(&l, 0, "n1", "http://10.0.0.1:7070", "sda");
	assert_string_equal(l.nodes[0].token_file, "/srv/lists/n1.token");
	node_is(&l, 1, "10.0.0.2", "http://10.0.0.2:7070", "sdc");
	assert_string_equal(l.nodes[1].token_file, "/etc/ft/n2.token");
	assert_string_equal(l.nodes[2].token_file, "/etc/ft/token");
	assert_string_equal(l.nodes[3].token_file, "/etc/ft/token");
	nodelist_release(&l);
}

static void test_hosts_errors(void **state)
{
	struct nodelist_opts o = { 0 };

	(void)state;
	assert_string_equal(parse_err("node1 http://h:7070 sda\nnode2\n", &o),
	                    "list:2: host 'node2' has no device: write 'host[:port] device' or "
	                    "give a default device");
	assert_string_equal(parse_err("n1 http://h:1 sda\nn2 http://h:2\n", &o),
	                    "list:2: host 'n2' has no device: write 'name url device' or give a "
	                    "default device");
	assert_string_equal(parse_err("n1 h:1 sda\n", &o),
	                    "list:1: 'h:1': the second of three fields must be the agent's URL "
	                    "(http:// or https://): 'name url device'");
	assert_string_equal(parse_err("a b c d\n", &o),
	                    "list:1: 4 fields: a host list line is 'name url device [token_file]', "
	                    "'host[:port] [device [token_file]]' or 'name url'");
	assert_non_null(strstr(parse_err("n1 http://h:1 sda t x\n", &o), "list:1: 5 fields"));
	/* Not a format at all: a CSV line. */
	assert_non_null(strstr(parse_err("\n\nhost;port;device\n", &o),
	                       "list:3: 'host;port;device' is not a host list line"));
	assert_non_null(strstr(parse_err("h:99999 sda\n", &o), "list:1: 'h:99999' is not"));
	assert_string_equal(parse_err("# nothing\n\n", &o), "list: no hosts in the file");
	o.group = "web";
	assert_non_null(strstr(parse_err("h sda\n", &o), "selects hosts of an Ansible inventory"));
}

static const char *ini_inventory = "# the site's inventory\n"
                                   "bastion.example.com\n"
                                   "\n"
                                   "[storage]\n"
                                   "node1 ansible_host=10.0.0.1 fleettune_device=sda\n"
                                   "node2 ansible_host=10.0.0.2\n"
                                   "node[03:04].example.com\n"
                                   "\n"
                                   "[storage:vars]\n"
                                   "fleettune_device = nvme0n1\n"
                                   "fleettune_port=7171\n"
                                   "\n"
                                   "[fast]\n"
                                   "node2 fleettune_url=\"https://node2.example.com:7443\"\n"
                                   "\n"
                                   "[fast:vars]\n"
                                   "fleettune_token_file=tokens/fast\n"
                                   "fleettune_device='sdb'\n"
                                   "\n"
                                   "[web]\n"
                                   "www[a:b] fleettune_device=sdz\n"
                                   "\n"
                                   "[datacenter:children]\n"
                                   "storage\n"
                                   "fast\n"
                                   "\n"
                                   "[all:vars]\n"
                                   "fleettune_port=7070\n"
                                   "ansible_user=ops\n";

static void test_ansible_ini(void **state)
{
	struct nodelist_opts o = { .group = "datacenter" };
	struct nodelist l;

	(void)state;
	l = parse_ok(ini_inventory, &o);
	assert_int_equal(l.format, NODELIST_ANSIBLE_INI);
	assert_int_equal(l.n, 4);
	/* Host variables win over every group's. */
	node_is(&l, 0, "node1", "http://10.0.0.1:7171", "sda");
	/* fast and storage are equally deep: merged by name, so storage's device wins (as in
	 * Ansible); the URL is a host variable, the token file only fast's. */
	node_is(&l, 1, "node2", "https://node2.example.com:7443", "nvme0n1");
	assert_string_equal(l.nodes[1].token_file, "/etc/ft/tokens/fast");
	/* A range, and storage's vars over all's. */
	node_is(&l, 2, "node03.example.com", "http://node03.example.com:7171", "nvme0n1");
	node_is(&l, 3, "node04.example.com", "http://node04.example.com:7171", "nvme0n1");
	assert_null(l.nodes[2].token_file);
	assert_int_equal(l.nodes[2].line, 7);
	nodelist_release(&l);

	o.group = "web";
	l = parse_ok(ini_inventory, &o);
	assert_int_equal(l.n, 2);
	node_is(&l, 0, "wwwa", "http://wwwa:7070", "sdz");
	node_is(&l, 1, "wwwb", "http://wwwb:7070", "sdz");
	nodelist_release(&l);
}

static void test_ansible_ini_errors(void **state)
{
	struct nodelist_opts o = { 0 };

	(void)state;
	/* Every host, the ungrouped bastion too: it has no device. */
	assert_string_equal(parse_err(ini_inventory, &o),
	                    "list:2: host 'bastion.example.com' has no device: set "
	                    "fleettune_device (a host or group variable) or give a default device");
	o.group = "nosuch";
	assert_string_equal(parse_err(ini_inventory, &o),
	                    "list: no group 'nosuch' with hosts (groups: ungrouped, storage, fast, "
	                    "web, datacenter)");
	o.group = NULL;
	assert_string_equal(parse_err("[g]\nh1 fleettune_device\n", &o),
	                    "list:2: 'fleettune_device' after host 'h1': expected key=value "
	                    "(Ansible's host variables)");
	assert_string_equal(parse_err("[g:hosts]\nh1 a=b\n", &o),
	                    "list:1: [g:hosts]: the suffix is :vars or :children");
	assert_string_equal(parse_err("[g:vars]\njust words\n", &o),
	                    "list:2: 'just words' in [g:vars]: expected key=value");
	assert_string_equal(parse_err("[g]\nweb[1:20000] a=b\n", &o),
	                    "list:2: more than 10000 hosts");
	assert_string_equal(parse_err("[g]\nweb[03:01] a=b\n", &o),
	                    "list:2: 'web[03:01]': a host range is [FROM:TO] or [FROM:TO:STEP] "
	                    "(web[01:20], db-[a:f])");
}

static const char *yaml_inventory =
        "---\n"
        "# the same fleet in YAML\n"
        "all:\n"
        "  vars:\n"
        "    fleettune_port: 7070\n"
        "    ntp_servers:          # a list nobody here reads\n"
        "      - 0.pool.ntp.org\n"
        "      - 1.pool.ntp.org\n"
        "    motd: |\n"
        "      a block scalar\n"
        "      # not a comment\n"
        "  hosts:\n"
        "    bastion.example.com:\n"
        "  children:\n"
        "    storage:\n"
        "      vars:\n"
        "        fleettune_device: nvme0n1\n"
        "        fleettune_port: \"7171\"\n"
        "      hosts:\n"
        "        node1:\n"
        "          ansible_host: 10.0.0.1\n"
        "          fleettune_device: 'sda'\n"
        "        node2: {ansible_host: 10.0.0.2, fleettune_url: 'https://node2:7443'}\n"
        "        node[03:05:2]:\n"
        "      children:\n"
        "        fast:\n"
        "          hosts:\n"
        "            node2:\n"
        "          vars: {fleettune_device: sdb, fleettune_token_file: /etc/ft/fast}\n"
        "    web:\n"
        "      hosts:\n"
        "        www1: {}\n";

static void test_ansible_yaml(void **state)
{
	struct nodelist_opts o = { .group = "storage" };
	struct nodelist l;

	(void)state;
	l = parse_ok(yaml_inventory, &o);
	assert_int_equal(l.format, NODELIST_ANSIBLE_YAML);
	assert_int_equal(l.n, 4);
	node_is(&l, 0, "node1", "http://10.0.0.1:7171", "sda");
	/* fast is storage's child: deeper, so its device wins over storage's. */
	node_is(&l, 1, "node2", "https://node2:7443", "sdb");
	assert_string_equal(l.nodes[1].token_file, "/etc/ft/fast");
	node_is(&l, 2, "node03", "http://node03:7171", "nvme0n1");
	node_is(&l, 3, "node05", "http://node05:7171", "nvme0n1");
	assert_int_equal(l.nodes[0].line, 20);
	assert_int_equal(l.nodes[3].line, 24);
	nodelist_release(&l);

	/* All hosts with a default device: bastion and www1 take it. */
	o.group = NULL;
	o.device = "sdq";
	l = parse_ok(yaml_inventory, &o);
	assert_int_equal(l.n, 6);
	node_is(&l, 0, "bastion.example.com", "http://bastion.example.com:7070", "sdq");
	node_is(&l, 5, "www1", "http://www1:7070", "sdq");
	nodelist_release(&l);
}

static void test_ansible_yaml_errors(void **state)
{
	struct nodelist_opts o = { .group = "web" };

	(void)state;
	assert_string_equal(parse_err(yaml_inventory, &o),
	                    "list:32: host 'www1' has no device: set fleettune_device (a host or "
	                    "group variable) or give a default device");
	o.group = NULL;
	assert_string_equal(parse_err("all:\n  hosts:\n    - node1\n", &o),
	                    "list:2: the hosts of group 'all': expected a mapping");
	assert_string_equal(parse_err("all:\n  hosts:\n\tnode1:\n", &o),
	                    "list:3: a tab in the indentation (YAML indents with spaces)");
	assert_string_equal(parse_err("all:\n  host:\n    node1:\n", &o),
	                    "list:2: 'host' in group 'all': a group has hosts, vars and children");
	assert_string_equal(
	        parse_err("all:\n  hosts:\n    n1:\n      fleettune_device: [a, b]\n", &o),
	        "list:4: fleettune_device of host 'n1': expected a plain value");
	assert_string_equal(parse_err("all:\n  hosts:\n      n1:\n    n2:\n", &o),
	                    "list:4: indented more than the key above it");
	assert_string_equal(parse_err("all:\n  hosts:\n    just text\n", &o),
	                    "list:3: 'just text': expected 'key:' or 'key: value'");
	assert_string_equal(parse_err("all: {}\n---\nall: {}\n", &o),
	                    "list:2: a second YAML document: an inventory is one");
}

static const char *pods_json =
        "{\n"
        "  \"apiVersion\": \"v1\",\n"
        "  \"items\": [\n"
        "    {\n"
        "      \"kind\": \"Pod\",\n"
        "      \"metadata\": {\"name\": \"fleettune-agent-7xk2p\",\n"
        "                   \"labels\": {\"app.kubernetes.io/name\": \"fleettune-agent\",\n"
        "                              \"fleettune.io/device\": \"nvme1n1\"}},\n"
        "      \"spec\": {\"nodeName\": \"worker-1\", \"containers\": [{\"name\": \"agent\",\n"
        "                \"ports\": [{\"name\": \"metrics\", \"containerPort\": 9100},\n"
        "                          {\"name\": \"api\", \"containerPort\": 7070}]}]},\n"
        "      \"status\": {\"phase\": \"Running\", \"podIP\": \"10.244.1.7\",\n"
        "                 \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}\n"
        "    },\n"
        "    {\n"
        "      \"kind\": \"Pod\",\n"
        "      \"metadata\": {\"name\": \"fleettune-agent-9qw4z\",\n"
        "                   \"annotations\": {\"fleettune.io/device\": \"/dev/sdb\"}},\n"
        "      \"spec\": {\"nodeName\": \"worker-2\", \"containers\": [{\"name\": \"agent\"}]},\n"
        "      \"status\": {\"phase\": \"Running\", \"podIP\": \"fd00::7\",\n"
        "                 \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}\n"
        "    },\n"
        "    {\n"
        "      \"kind\": \"Pod\",\n"
        "      \"metadata\": {\"name\": \"fleettune-agent-b8m1c\"},\n"
        "      \"spec\": {\"nodeName\": \"worker-3\"},\n"
        "      \"status\": {\"phase\": \"Running\", \"podIP\": \"10.244.3.2\",\n"
        "                 \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}\n"
        "    }\n"
        "  ],\n"
        "  \"kind\": \"List\"\n"
        "}\n";

/* The label of node i called key (NULL: none). */
static const char *label_of(const struct nodelist *l, int i, const char *key)
{
	int k;

	for (k = 0; k < l->nodes[i].nlabels; k++)
		if (!strcmp(l->nodes[i].labels[k].key, key))
			return l->nodes[i].labels[k].value;
	return NULL;
}

/* fleettune_label_KEY variables are the nodes' labels (cohort_by may group by them), with
 * Ansible's precedence: the host's over its deepest group's over all's. */
static void test_ansible_labels(void **state)
{
	static const char ini[] = "[all:vars]\nfleettune_device=sdb\nfleettune_label_pool=gold\n"
	                          "[rack1]\nn1\nn2 fleettune_label_rack=r1b\n"
	                          "[rack1:vars]\nfleettune_label_rack=r1\n"
	                          "[rack2]\nn3\n[rack2:vars]\nfleettune_label_rack=r2\n"
	                          "fleettune_label_pool=silver\n";
	static const char yaml[] = "all:\n  vars:\n    fleettune_device: sdb\n  children:\n"
	                           "    rack1:\n      vars:\n        fleettune_label_rack: r1\n"
	                           "      hosts:\n        n1:\n        n2:\n"
	                           "          fleettune_label_rack: r1b\n"
	                           "    rack2:\n      vars: {fleettune_label_rack: r2}\n"
	                           "      hosts:\n        n3:\n";
	struct nodelist_opts o = { 0 };
	struct nodelist l;
	const char *msg;

	(void)state;
	l = parse_ok(ini, &o);
	assert_int_equal(l.n, 3);
	assert_string_equal(label_of(&l, 0, "rack"), "r1");
	assert_string_equal(label_of(&l, 0, "pool"), "gold");
	assert_string_equal(label_of(&l, 1, "rack"), "r1b");
	assert_string_equal(label_of(&l, 2, "rack"), "r2");
	assert_string_equal(label_of(&l, 2, "pool"), "silver");
	assert_int_equal(l.nodes[2].nlabels, 2);
	nodelist_release(&l);
	l = parse_ok(yaml, &o);
	assert_int_equal(l.n, 3);
	assert_string_equal(label_of(&l, 0, "rack"), "r1");
	assert_string_equal(label_of(&l, 1, "rack"), "r1b");
	assert_string_equal(label_of(&l, 2, "rack"), "r2");
	assert_null(label_of(&l, 2, "pool"));
	nodelist_release(&l);
	/* A value the reader does not understand is an error naming its line. */
	msg = parse_err("all:\n  hosts:\n    n1:\n      fleettune_device: sdb\n"
	                "      fleettune_label_rack: [r1, r2]\n",
	                &o);
	assert_non_null(strstr(msg, "list:5: fleettune_label_rack of host 'n1': expected a plain "
	                            "value"));
}

static void test_kubectl(void **state)
{
	struct nodelist_opts o = { .device = "sdc", .token_file = "/run/secrets/token" };
	struct nodelist l;

	(void)state;
	l = parse_ok(pods_json, &o);
	assert_int_equal(l.format, NODELIST_KUBECTL);
	assert_int_equal(l.n, 3);
	node_is(&l, 0, "worker-1", "http://10.244.1.7:7070", "nvme1n1");
	node_is(&l, 1, "worker-2", "http://[fd00::7]:7070", "sdb");
	node_is(&l, 2, "worker-3", "http://10.244.3.2:7070", "sdc");
	assert_int_equal(l.nodes[0].line, 6);
	assert_int_equal(l.nodes[2].line, 25);
	assert_string_equal(l.nodes[2].token_file, "/run/secrets/token");
	nodelist_release(&l);

	/* One pod (kubectl get pod NAME -o json), a port and scheme given. */
	o.port = 8443;
	o.scheme = "https";
	l = parse_ok("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"status\":{\"podIP\":"
	             "\"10.0.0.9\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
	             &o);
	node_is(&l, 0, "p", "https://10.0.0.9:8443", "sdc");
	nodelist_release(&l);
}

static void test_kubectl_errors(void **state)
{
	struct nodelist_opts o = { 0 };
	char *pending = strdup(pods_json), *p;

	(void)state;
	assert_string_equal(parse_err(pods_json, &o),
	                    "list:25: items[2]: pod fleettune-agent-b8m1c has no device: label it "
	                    "fleettune.io/device or give a default device");
	o.device = "sda";
	/* worker-2's pod is Pending and not Ready. */
	p = strstr(pending, "\"status\": {\"phase\": \"Running\", \"podIP\": \"fd00::7\"");
	assert_non_null(p);
	memcpy(p + strlen("\"status\": {\"phase\": \""), "Pending", 7);
	p = strstr(p, "\"True\"");
	memcpy(p, "\"Fals\"", 6);
	assert_string_equal(parse_err(pending, &o),
	                    "list:17: items[1]: pod fleettune-agent-9qw4z on node worker-2 is not "
	                    "Ready (phase Pending): wait for it (kubectl rollout status) or leave "
	                    "it out of the list");
	free(pending);
	assert_string_equal(parse_err("{\"kind\":\"List\",\"items\":[]}", &o),
	                    "list: no pods in the list (is the label selector right?)");
	assert_string_equal(parse_err("{\"kind\":\"Node\"}", &o),
	                    "list:1: JSON, but not the output of kubectl get pods -o json (no "
	                    "\"items\" array, not a Pod)");
	assert_non_null(strstr(parse_err("{\"items\": [\n  {]\n}", &o), "list:2: not JSON"));
}

static void test_formats(void **state)
{
	enum nodelist_format f;
	struct nodelist_opts o = { .format = NODELIST_HOSTS, .device = "sda" };
	struct nodelist l;

	(void)state;
	assert_int_equal(nodelist_format_parse("ansible-yaml", &f), 0);
	assert_int_equal(f, NODELIST_ANSIBLE_YAML);
	assert_string_equal(nodelist_format_name(NODELIST_KUBECTL), "kubectl");
	assert_int_equal(nodelist_format_parse("csv", &f), -EINVAL);
	/* Told apart by the text. */
	l = parse_ok("[g]\nh fleettune_device=sda\n", NULL);
	assert_int_equal(l.format, NODELIST_ANSIBLE_INI);
	nodelist_release(&l);
	l = parse_ok("h ansible_host=1.2.3.4 fleettune_device=sda\n", NULL);
	assert_int_equal(l.format, NODELIST_ANSIBLE_INI);
	nodelist_release(&l);
	l = parse_ok("g:\n  hosts:\n    h: {fleettune_device: sda}\n", NULL);
	assert_int_equal(l.format, NODELIST_ANSIBLE_YAML);
	nodelist_release(&l);
	l = parse_ok("[fe80::2]:7070 sda\n", NULL);
	assert_int_equal(l.format, NODELIST_HOSTS);
	nodelist_release(&l);
	/* A format given is the one used. */
	assert_non_null(strstr(parse_err("g:\n  hosts:\n", &o), "list:1: 'g:' is not a host list"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_file),
		cmocka_unit_test(test_hosts_token_files),
		cmocka_unit_test(test_hosts_errors),
		cmocka_unit_test(test_ansible_ini),
		cmocka_unit_test(test_ansible_ini_errors),
		cmocka_unit_test(test_ansible_yaml),
		cmocka_unit_test(test_ansible_yaml_errors),
		cmocka_unit_test(test_ansible_labels),
		cmocka_unit_test(test_kubectl),
		cmocka_unit_test(test_kubectl_errors),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
