/*
 * tests/unit/test-devices.c — kb_device_class() (profile/devices.c): the
 * character devices refused whoever asks (issue 28, finding 7), by fixed
 * major and minor, and by the driver's name in a /proc/devices stand-in
 * for a major given out at load time; the file read on a descriptor,
 * bounded, its block section never taken for the character one. Each
 * refusal has its control beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../profile/policy.h"
#include "tap.h"

static char dir[] = "/tmp/kb-test-devices.XXXXXX";

static char *
put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("# write %s: %s\n", path, strerror(errno));
	if (fd != -1)
		close(fd);
	return path;
}

/* kb_device_class of major:minor against `devices`: its answer, the text
 * into *out (static) */
static int
cls(unsigned maj, unsigned min, const char *devices, const char **out)
{
	static char buf[400];
	int rc;

	buf[0] = '\0';
	rc = kb_device_class(makedev(maj, min), devices, buf, sizeof(buf));
	*out = buf;
	return rc;
}

static void
test_fixed(void)
{
	static const struct {
		unsigned maj, min;
		const char *want;
	} refused[] = {
	    {21, 0, "a SCSI generic node (raw disk access, major 21)"},
	    {13, 64, "an input device (keyboard and mouse events, read and "
		     "injected, major 13)"},
	    {10, 223, "the uinput device (a virtual keyboard, keystrokes "
		      "injected, 10:223)"},
	    {10, 239, "the uhid device (a virtual HID keyboard, keystrokes "
		      "injected, 10:239)"},
	    {4, 0, "a virtual console (the console's keyboard and screen, "
		   "4:0)"},
	    {4, 63, "a virtual console (the console's keyboard and screen, "
		    "4:63)"},
	    {5, 1, "the system console (the console's keyboard and screen, "
		   "5:1)"},
	    {7, 128, "a virtual console's memory (the console's screen, "
		     "read and written, major 7)"},
	    {136, 0, "a pseudo-terminal (another session's keyboard and "
		     "screen, major 136)"},
	    {143, 7, "a pseudo-terminal (another session's keyboard and "
		     "screen, major 143)"},
	    {1, 1, "the machine's raw memory (/dev/mem, /dev/kmem, 1:1)"},
	    {1, 2, "the machine's raw memory (/dev/mem, /dev/kmem, 1:2)"},
	    {1, 4, "the machine's raw I/O ports (/dev/port, 1:4)"},
	    {202, 3, "a CPU's model-specific registers (raw CPU control, "
		     "major 202)"},
	    {9, 128, "a SCSI tape (raw tape access, major 9)"},
	    {90, 1, "an MTD flash device (raw flash access, major 90)"},
	    {10, 130, "a hardware watchdog (opening it can reboot the "
		      "machine, 10:130)"},
	    {189, 5, "a raw USB device (any USB device's traffic, a "
		     "keyboard's or a disk's, major 189)"},
	};
	/* the controls: null, zero, random, urandom, kmsg, the caller's
	 * tty, ptmx, ttyS0 (4:64), misc's fuse, kvm, hwrng, DRM, NVIDIA */
	static const unsigned ok_nodes[][2] = {{1, 3}, {1, 5}, {1, 8}, {1, 9},
	    {1, 11}, {5, 0}, {5, 2}, {4, 64}, {10, 229}, {10, 232}, {10, 183},
	    {226, 128}, {195, 0}, {195, 255}, {144, 0}};
	const char *got;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int rc = cls(refused[i].maj, refused[i].min, NULL, &got);

		ok(rc == 1 && strcmp(got, refused[i].want) == 0,
		    "%u:%u is refused: %s", refused[i].maj, refused[i].min,
		    got);
	}
	for (size_t i = 0; i < sizeof(ok_nodes) / sizeof(ok_nodes[0]); i++)
		ok(cls(ok_nodes[i][0], ok_nodes[i][1], NULL, &got) == 0,
		    "control: %u:%u is of no refused class (%s)",
		    ok_nodes[i][0], ok_nodes[i][1], got);
}

static void
test_dynamic(void)
{
	_cleanup_free_ char *devs = put("devices",
	    "Character devices:\n"
	    "  1 mem\n"
	    "  4 /dev/vc/0\n"
	    "  4 tty\n"
	    "240 nvme-generic\n"
	    "241 nvme\n"
	    "242 bsg\n"
	    "243 dax\n"
	    "244 ubi12\n"
	    "245 watchdog\n"
	    "238 hidraw\n"
	    "239 usbmon\n"
	    "246 nvidia-uvm\n"
	    "247 kfd\n"
	    "\n"
	    "Block devices:\n"
	    "248 nvme\n"
	    "259 blkext\n");
	_cleanup_free_ char *big = NULL;
	const char *got;
	struct kb_buf b = {0};

	ok(cls(240, 1, devs, &got) == 1 &&
	       strcmp(got, "an NVMe generic node (raw disk access, major "
			   "240: nvme-generic)") == 0,
	    "an NVMe generic node by its driver's name: %s", got);
	ok(cls(241, 0, devs, &got) == 1 && strstr(got, "an NVMe controller") &&
	       strstr(got, "major 241: nvme)"),
	    "an NVMe controller: %s", got);
	ok(cls(242, 3, devs, &got) == 1 &&
	       strcmp(got, "a block SCSI generic node (raw disk access, major "
			   "242: bsg)") == 0,
	    "bsg: %s", got);
	ok(cls(243, 0, devs, &got) == 1 && strstr(got, "device-DAX"),
	    "dax: %s", got);
	ok(cls(244, 0, devs, &got) == 1 && strstr(got, "a UBI volume") &&
	       strstr(got, "major 244: ubi12)"),
	    "ubi12, a pattern: %s", got);
	ok(cls(245, 0, devs, &got) == 1 && strstr(got, "watchdog"),
	    "a watchdog's load-time major: %s", got);
	ok(cls(238, 2, devs, &got) == 1 &&
	       strcmp(got, "a raw HID device (a keyboard's reports, read and "
			   "sent, major 238: hidraw)") == 0,
	    "hidraw: %s", got);
	ok(cls(239, 0, devs, &got) == 1 && strstr(got, "the USB monitor") &&
	       strstr(got, "major 239: usbmon)"),
	    "usbmon: %s", got);
	ok(cls(246, 0, devs, &got) == 0 && cls(247, 0, devs, &got) == 0,
	    "control: nvidia-uvm and kfd, load-time majors of GPUs, pass");
	ok(cls(248, 0, devs, &got) == -1 && strstr(got, "no driver holds") &&
	       strstr(got, "(248)"),
	    "a character major only the block section names is held by no "
	    "character driver (the block nvme is not it): %s",
	    got);
	ok(cls(250, 0, devs, &got) == -1 && strstr(got, "no driver holds"),
	    "a load-time major nobody holds is not told as harmless: %s",
	    got);
	/* the file cannot be read: a load-time major cannot be told, a
	 * fixed one still is */
	ok(cls(246, 0, "/nonexistent/devices", &got) == -1 &&
	       strstr(got, "cannot be read (No such file or directory)"),
	    "no file: a load-time major is refused as unknown: %s", got);
	ok(cls(1, 3, "/nonexistent/devices", &got) == 0 &&
	       cls(21, 0, "/nonexistent/devices", &got) == 1,
	    "... while a fixed major is judged by its number alone");
	/* bounded: past 64 KiB the file is not read (a FIFO never waited on:
	 * not a regular file) */
	kb_buf_puts(&b, "Character devices:\n");
	while (b.len < 70 * 1024)
		kb_buf_puts(&b, "233 padding-driver-name\n");
	kb_buf_puts(&b, "246 nvidia-uvm\n");
	big = put("big", b.s);
	kb_buf_free(&b);
	ok(cls(246, 0, big, &got) == -1 && strstr(got, "cannot be read"),
	    "a file past its bound is not read: %s", got);
	{
		_cleanup_free_ char *fifo = xasprintf("%s/fifo", dir);

		if (mkfifo(fifo, 0600) == -1)
			printf("# mkfifo: %s\n", strerror(errno));
		alarm(10);
		ok(cls(246, 0, fifo, &got) == -1 &&
		       strstr(got, "cannot be read"),
		    "a FIFO is not read (nor waited on): %s", got);
		alarm(0);
		unlink(fifo);
	}
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	test_fixed();
	test_dynamic();
	{
		_cleanup_free_ char *a = xasprintf("%s/devices", dir);
		_cleanup_free_ char *b = xasprintf("%s/big", dir);

		unlink(a);
		unlink(b);
		rmdir(dir);
	}
	return tap_done();
}
