/* test_identity.c -- a device's and the host's identity from temp sysfs trees laid out as the
 * kernel lays out SATA, SAS, NVMe, virtio, loop, dm and md devices; missing files are absent
 * fields. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/identity.h"
#include "testutil.h"

struct fx {
	char *root;
	struct sysfs fs;
};

/* Binary content (the VPD pages hold NUL bytes). */
static void tu_write_bin(const char *root, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	tu_write(root, rel, "", 0444);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

#define SATA_DEV "sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0"
#define SAS_DEV                                                                                    \
	"sys/devices/pci0000:00/0000:03:00.0/host4/port-4:0/end_device-4:0/target4:0:0/4:0:0:0"
#define NVME_DEV "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0"
#define VIRTIO_DEV "sys/devices/pci0000:00/0000:00:02.0/virtio1"

static int setup(void **state)
{
	static const unsigned char vpd80[] = { 0x00, 0x80, 0x00, 0x14, ' ', ' ', ' ', ' ',
		                               ' ',  ' ',  ' ',  ' ',  ' ', ' ', ' ', ' ',
		                               'Z',  '1',  'Z',  '0',  'A', 'B', 'C', 'D' };
	struct fx *f = calloc(1, sizeof(*f));

	f->root = tu_tmpdir();
	f->fs.root = f->root;

	/* SATA behind libata: sysfs pads vendor and model with blanks. */
	tu_fake_device(f->root, "sda", 0);
	tu_write(f->root, "sys/block/sda/queue/rotational", "1\n", 0444);
	tu_write(f->root, "sys/block/sda/queue/physical_block_size", "4096\n", 0444);
	tu_write(f->root, SATA_DEV "/vendor", "ATA     \n", 0444);
	tu_write(f->root, SATA_DEV "/model", "ST300MM0008     \n", 0444);
	tu_write(f->root, SATA_DEV "/rev", "2.1 \n", 0444);
	tu_write(f->root, SATA_DEV "/wwid", "naa.5000c500a1b2c3d4\n", 0444);
	tu_write_bin(f->root, SATA_DEV "/vpd_pg80", vpd80, sizeof(vpd80));
	tu_link(f->root, SATA_DEV "/subsystem", "../../../../../../../bus/scsi");
	tu_link(f->root, "sys/block/sda/device",
	        "../../devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0");

	/* SAS: an end device with a sas_address, no VPD page, a control byte in the model. */
	tu_fake_device(f->root, "sdb", 0);
	tu_write(f->root, SAS_DEV "/vendor", "SEAGATE \n", 0444);
	tu_write(f->root, SAS_DEV "/model",
	         "ST1200MM\x01"
	         "0088  \n",
	         0444);
	tu_write(f->root, SAS_DEV "/rev", "N004\n", 0444);
	tu_write(f->root, SAS_DEV "/sas_address", "0x5000c500a1b2c3d5\n", 0444);
	tu_link(f->root, SAS_DEV "/subsystem", "../../../../../../../../bus/scsi");
	tu_link(f->root, "sys/block/sdb/device",
	        "../../devices/pci0000:00/0000:03:00.0/host4/port-4:0/end_device-4:0/target4:0:0/"
	        "4:0:0:0");

	/* NVMe: model, firmware and serial on the controller, the wwid on the namespace. */
	tu_fake_device(f->root, "nvme0n1", 0);
	tu_write(f->root, NVME_DEV "/model", "Samsung SSD 980 PRO 1TB                 \n", 0444);
	tu_write(f->root, NVME_DEV "/firmware_rev", "5B2QGXA7\n", 0444);
	tu_write(f->root, NVME_DEV "/serial", "S5GXNF0R123456      \n", 0444);
	tu_write(f->root, "sys/block/nvme0n1/wwid", "eui.002538b111b1a2c3\n", 0444);
	tu_link(f->root, NVME_DEV "/subsystem", "../../../../../class/nvme");
	tu_link(f->root, "sys/block/nvme0n1/device",
	        "../../devices/pci0000:00/0000:00:04.0/nvme/nvme0");

	/* An NVMe controller whose firmware, serial and wwid files are missing. */
	tu_fake_device(f->root, "nvme1n1", 0);
	tu_write(f->root, NVME_DEV "1/model", "Micron 7450\n", 0444);
	tu_link(f->root, NVME_DEV "1/subsystem", "../../../../../class/nvme");
	tu_link(f->root, "sys/block/nvme1n1/device",
	        "../../devices/pci0000:00/0000:00:04.0/nvme/nvme01");

	/* virtio-blk: the virtio vendor id and the serial on the disk itself. */
	tu_fake_device(f->root, "vda", 0);
	tu_write(f->root, VIRTIO_DEV "/vendor", "0x1af4\n", 0444);
	tu_write(f->root, "sys/block/vda/serial", "drive-disk0\n", 0444);
	tu_link(f->root, VIRTIO_DEV "/subsystem", "../../../../bus/virtio");
	tu_link(f->root, "sys/block/vda/device", "../../devices/pci0000:00/0000:00:02.0/virtio1");

	/* A loop device, a device-mapper and an md device: no device/ link. */
	tu_fake_device(f->root, "loop0", 0);
	tu_write(f->root, "sys/block/loop0/loop/backing_file", "/tmp/a.img\n", 0444);
	tu_fake_device(f->root, "dm-0", 0);
	tu_write(f->root, "sys/block/dm-0/dm/name", "vg0-data\n", 0444);
	tu_fake_device(f->root, "md0", 0);
	tu_write(f->root, "sys/block/md0/md/level", "raid1\n", 0444);

	/* A device with nothing but its directory. */
	tu_write(f->root, "sys/block/zram0/.keep", "", 0444);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->root);
	free(f->root);
	free(f);
	return 0;
}

static void read_ok(struct fx *f, const char *dev, bool hide, struct device_identity *id)
{
	struct err e;

	err_clear(&e);
	assert_int_equal(identity_device_read(&f->fs, dev, hide, id, &e), 0);
}

static void test_sata(void **state)
{
	struct device_identity id;

	read_ok(*state, "sda", false, &id);
	assert_string_equal(id.transport, "sata");
	assert_string_equal(id.vendor, "ATA");
	assert_string_equal(id.model, "ST300MM0008");
	assert_string_equal(id.firmware, "2.1");
	assert_string_equal(id.wwid, "naa.5000c500a1b2c3d4");
	assert_string_equal(id.serial, "Z1Z0ABCD"); /* from the VPD page, leading blanks trimmed */
	assert_true(id.has_rotational);
	assert_true(id.rotational);
	assert_int_equal(id.logical_block_bytes, 512);
	assert_int_equal(id.physical_block_bytes, 4096);
	assert_true(id.has_size);
	assert_int_equal(id.size_bytes, 2097152ULL * 512);
}

static void test_sas(void **state)
{
	struct device_identity id;

	read_ok(*state, "sdb", false, &id);
	assert_string_equal(id.transport, "sas");
	assert_string_equal(id.vendor, "SEAGATE");
	assert_string_equal(id.model, "ST1200MM?0088"); /* the control byte is a '?' */
	assert_string_equal(id.firmware, "N004");
	assert_string_equal(id.serial, ""); /* no VPD page: absent */
	assert_string_equal(id.wwid, "");
	assert_false(id.rotational);
	assert_int_equal(id.physical_block_bytes, 0); /* no physical_block_size file */
}

static void test_nvme(void **state)
{
	struct device_identity id;

	read_ok(*state, "nvme0n1", false, &id);
	assert_string_equal(id.transport, "nvme");
	assert_string_equal(id.vendor, "");
	assert_string_equal(id.model, "Samsung SSD 980 PRO 1TB");
	assert_string_equal(id.firmware, "5B2QGXA7");
	assert_string_equal(id.serial, "S5GXNF0R123456");
	assert_string_equal(id.wwid, "eui.002538b111b1a2c3");

	read_ok(*state, "nvme1n1", false, &id);
	assert_string_equal(id.transport, "nvme");
	assert_string_equal(id.model, "Micron 7450");
	assert_string_equal(id.firmware, "");
	assert_string_equal(id.serial, "");
	assert_string_equal(id.wwid, "");
}

static void test_virtio(void **state)
{
	struct device_identity id;

	read_ok(*state, "vda", false, &id);
	assert_string_equal(id.transport, "virtio");
	assert_string_equal(id.vendor, "0x1af4");
	assert_string_equal(id.model, "");
	assert_string_equal(id.firmware, "");
	assert_string_equal(id.serial, "drive-disk0");
}

static void test_virtual(void **state)
{
	struct device_identity id;
	struct fx *f = *state;
	struct err e;

	read_ok(f, "loop0", false, &id);
	assert_string_equal(id.transport, "loop");
	assert_string_equal(id.model, "");
	assert_string_equal(id.serial, "");
	assert_true(id.has_rotational);
	read_ok(f, "dm-0", false, &id);
	assert_string_equal(id.transport, "dm");
	read_ok(f, "md0", false, &id);
	assert_string_equal(id.transport, "md");

	/* Nothing but a directory: every field absent, and still no error. */
	read_ok(f, "zram0", false, &id);
	assert_null(id.transport);
	assert_false(id.has_rotational);
	assert_false(id.has_size);
	assert_int_equal(id.logical_block_bytes, 0);

	/* The name is checked before any path is built; an unknown device is not_found. */
	assert_int_equal(identity_device_read(&f->fs, "../etc", false, &id, &e), -EINVAL);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	assert_int_equal(identity_device_read(&f->fs, "sdz", false, &id, &e), -ENOENT);
	assert_int_equal(e.code, ERR_NOT_FOUND);
}

static void test_hide_serial(void **state)
{
	struct device_identity id, again;
	char h[64];

	read_ok(*state, "sda", true, &id);
	/* sha256("fleettune-serial:Z1Z0ABCD"), first 16 hex digits (Python's hashlib). */
	assert_string_equal(id.serial, "sha256:acc459be013e9479");
	read_ok(*state, "sda", true, &again);
	assert_string_equal(again.serial, id.serial);
	identity_serial_hash("Z1Z0ABCD", h, sizeof(h));
	assert_string_equal(h, id.serial);
	identity_serial_hash("Z1Z0ABCE", h, sizeof(h));
	assert_string_not_equal(h, id.serial);
	/* Everything else is as without the flag; an absent serial stays absent. */
	assert_string_equal(id.model, "ST300MM0008");
	read_ok(*state, "nvme1n1", true, &id);
	assert_string_equal(id.serial, "");
}

static void test_host(void **state)
{
	struct fx *f = *state;
	struct host_identity h;

	identity_host_read(&f->fs, &h);
	assert_string_equal(h.kernel, "");
	assert_string_equal(h.machine, "");
	assert_string_equal(h.hostname, "");
	tu_write(f->root, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n", 0444);
	tu_write(f->root, "sys/class/dmi/id/product_name", "PowerEdge R640\n", 0444);
	tu_write(f->root, "proc/sys/kernel/hostname", "rack7-n23\n", 0444);
	identity_host_read(&f->fs, &h);
	assert_string_equal(h.kernel, "6.1.0-18-amd64");
	assert_string_equal(h.machine, "PowerEdge R640");
	assert_string_equal(h.hostname, "rack7-n23");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvme, setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtual, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hide_serial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
