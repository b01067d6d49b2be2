// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: slabtrace's stress test in the guest (scripts/vm/guest/stress.sh).
 * Built static with the host's gcc (make test-modules).
 *
 *   fuzz [-t SECONDS] [-n WRITES] [-s SEED] [-w WRITERS] [-r READERS]
 *        [-H SECONDS] [-m MODDIR]
 *
 * For -t seconds (60), and on until -n writes were made (0) but for at
 * most four times -t (a slow guest, an emulated CPU or a busy host, runs
 * longer rather than make too few commands), forked workers at once:
 *   - WRITERS (3) write commands to every writable file of slabtrace
 *     (ctl, kmemtrace/enable, kmemtrace/buffer_kb): commands of the
 *     documented grammar with random arguments, and mutations of them
 *     (flipped bytes, NULs, cut short, garbage words, huge numbers, random
 *     bytes, overlong), some written from a bad address or at an offset;
 *   - READERS (2) open random files of /sys/kernel/debug/slabtrace (the
 *     kmemtrace relay files included), seek at random and read with random
 *     buffer sizes, under random command names (many contexts); one time
 *     in 200, twelve processes read kptrace or kptrace_pipe together;
 *   - one reloader rmmods and insmods stressirq (whose cache the writers
 *     trace, and the reloader itself before half the rmmods) and slabtrace
 *     itself, half the time with the others held between two operations,
 *     half the time in the middle of them; slabtrace now and then with a
 *     parameter in or out of its documented range, which must load or be
 *     refused with the errno it should (then it is loaded without);
 *   - a watcher follows /dev/kmsg (below).
 * Allocations in task, softirq and hardirq context come from stressirq.
 *
 * Every write must succeed or fail with an errno of the expected set;
 * where the documentation plainly says that a command is valid or not (a
 * number in or out of its range, too many pids, a comm too long), it must
 * be accepted or refused.  Reads and seeks too must succeed or fail with
 * an expected errno, and every operation must return within -H seconds
 * (120).  The seed is printed first (worker N uses SEED + N): "fuzz -s
 * SEED" makes the same commands again, not in the same interleaving; each
 * unexpected result is printed with its command ("fuzz: UNEXPECTED: ...").
 * At the end slabtrace and stressirq are loaded.  The last lines count
 * what happened:
 *   fuzz: writes N: ok N, EINVAL N, ...
 *   fuzz: accepted: start N, stop N, ...
 *   fuzz: reads N (B bytes), crowds of kptrace readers N
 *   fuzz: read results N: ok N, EAGAIN N, ...
 *   fuzz: opens refused: ENOENT N, ...
 *   fuzz: reloads: slabtrace N, stressirq N (after a start of its cache N)
 *   fuzz: slabtrace's parameters: loaded N, refused N (as documented)
 *   fuzz: kernel log records lost to /dev/kmsg overruns: N
 *   fuzz: unexpected N, hung N, splats N
 * The watcher prints every line of a kernel splat ("fuzz: SPLAT: ...").
 * The exit status is 0 if there was nothing unexpected, nothing hung and
 * no splat.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* slabtrace's two trees: the same files, fuzzed through either. */
#define ST		"/proc/slabtrace"
#define ST_DEBUGFS	"/sys/kernel/debug/slabtrace"
#define MAX_WORKERS	16
#define NR_ERRNO	140
#define CMD_MAX		4200
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* What a writer's command was, for the "accepted" counts. */
enum verb { V_START, V_STOP, V_PRINT, V_MARK, V_RESET, V_POOL, V_LIMIT,
	    V_SYSCALL, V_KMEMTRACE, V_ENABLE, V_BUFFER_KB, V_GARBAGE, NR_VERB };

static const char * const verb_names[NR_VERB] = {
	"start", "stop", "print", "mark", "reset", "pool", "limit", "syscall",
	"kmemtrace", "enable", "buffer_kb", "garbage",
};

struct worker {
	pid_t pid;
	long op_start_ms;	/* 0: between operations */
	int hung;		/* reported as hung */
	int held;		/* waiting for the reloader */
	char what[160];		/* the current operation */
	long writes, write_err[NR_ERRNO], accepted[NR_VERB];
	long reads, read_bytes, read_err[NR_ERRNO], open_err[NR_ERRNO], crowds;
	long unexpected;
	long st_reloads, irq_reloads, irq_traced;
	long params_loaded, params_refused;	/* as the documentation says */
};

struct shared {
	int stop;
	long splats, kmsg_lost;
	int hold;		/* workers wait between operations */
	struct worker w[MAX_WORKERS];
};

/*
 * What the documentation says of a command, where it says it plainly:
 * must it be accepted (EBUSY and ENOMEM aside) or refused?
 */
enum oracle { DONT_KNOW, VALID, INVALID };

static struct shared *sh;
static enum oracle oracle;
static struct worker *me;
static unsigned long long rng;
static const char *moddir = "/lib/slabtrace";

static unsigned long long rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Printable, escaped, at most 100 bytes of @buf[0..len). */
static void escape(char *out, size_t size, const char *buf, size_t len)
{
	size_t o = 0, i;

	for (i = 0; i < len && o + 8 < size && i < 100; i++) {
		unsigned char c = buf[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = c;
		else
			o += snprintf(out + o, size - o, "\\x%02x", c);
	}
	if (i < len && o + 4 < size)
		o += snprintf(out + o, size - o, "...");
	out[o] = 0;
}

static void op_begin(const char *fmt, const char *file, const char *cmd,
		     size_t len)
{
	char esc[140];

	escape(esc, sizeof(esc), cmd ? cmd : "", cmd ? len : 0);
	snprintf(me->what, sizeof(me->what), fmt, file, esc);
	__atomic_store_n(&me->op_start_ms, now_ms(), __ATOMIC_RELEASE);
}

static void op_end(void)
{
	__atomic_store_n(&me->op_start_ms, 0, __ATOMIC_RELEASE);
}

/* Between two operations: wait while the reloader holds the workers. */
static void maybe_hold(void)
{
	while (__atomic_load_n(&sh->hold, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&me->held, 1, __ATOMIC_RELEASE);
		sleep_ms(2);
	}
	__atomic_store_n(&me->held, 0, __ATOMIC_RELEASE);
}

static int stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE);
}

static void count(long *v, int err)
{
	v[err > 0 && err < NR_ERRNO ? err : 0]++;
}

static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err) : "ok";

	return n ? n : "E?";
}

/* The grammar's pieces. */
static const char * const caches[] = {
	"kmalloc-32", "kmalloc-64", "kmalloc-96", "kmalloc-128", "kmalloc-192",
	"kmalloc-256", "kmalloc-1k", "kmalloc-cg-64", "kmalloc-rcl-64",
	"dentry", "filp", "stressirq_obj", "leaky_widget", "slabtrace_record",
	"no_such_cache", ":0000064", "memdup_user-64", "task_struct",
	"kmalloc-", "KMALLOC-64", "../kmalloc-64", "kmalloc-64/",
	"stressirq_obj stressirq_obj",
};

static const char * const numbers[] = {
	"0", "1", "2", "15", "16", "17", "100", "4096", "65536", "1048577",
	"4294967295", "4294967296", "9223372036854775807",
	"18446744073709551615", "18446744073709551616", "18446744073709555712",
	"99999999999999999999999999", "-1", "-0", "+5", "0x10", "010", "1e3",
	" 7", "7 ", "", "abc", "4K", "1M", "2G", "3T",
};

static const char * const sizes[] = {
	"4096", "4K", "8K", "64K", "1M", "2M", "4M", "8M", "3", "4095", "10X",
	"257M", "268435457", "256M0", "1K1", "M", "0", "-4K",
	"18446744073709555712", "18446744073709551616K", "17179869184M",
	"4294967296K", "9007199254740992K", "18014398509481988K",
	"17592186044420M",
};

static const char * const comms[] = {
	"kpt_probe", "sh", "fuzz", "stressirq", "", "0123456789abcdef",
	"a_name_that_is_much_too_long_for_a_comm", "\xff\xfe", "ls",
};

/*
 * @s as a plain decimal number with an optional suffix among @suffixes
 * (K = 2^10, M = 2^20): 0 and the value in @v, -1 if it is not that form,
 * -2 if it overflows 64 bits or has a sign (the module's numbers are
 * digits only: "+5" and "-0" are refused, though kstrtoul() takes "+5").
 */
static int plain_number(const char *s, const char *suffixes, unsigned long long *v)
{
	unsigned long long n = 0;
	int digits = 0, shift;

	if (*s == '+' || *s == '-')
		return -2;
	for (; *s >= '0' && *s <= '9'; s++, digits++)
		if (__builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, *s - '0', &n))
			return -2;
	if (!digits)
		return -1;
	if (*s && strchr(suffixes, *s)) {
		shift = (*s == 'K' || *s == 'k') ? 10 : 20;
		if (n >> (64 - shift))
			return -2;
		n <<= shift;
		s++;
	}
	if (*s)
		return -1;
	*v = n;
	return 0;
}

/* Valid if @s is a plain number in @min..@max, invalid if it is not in it. */
static enum oracle in_range(const char *s, const char *suffixes,
			    unsigned long long min, unsigned long long max)
{
	unsigned long long v;
	int ret = plain_number(s, suffixes, &v);

	if (ret == -1)
		return DONT_KNOW;
	return !ret && v >= min && v <= max ? VALID : INVALID;
}

static const char *pick(const char * const *a, unsigned int n)
{
	return a[below(n)];
}

static const char *any_cache(void)
{
	return pick(caches, ARRAY_SIZE(caches));
}

static const char *any_number(void)
{
	return pick(numbers, ARRAY_SIZE(numbers));
}

static const char *any_comm(void)
{
	return pick(comms, ARRAY_SIZE(comms));
}

/* A number: from the list, or random, small or huge. */
static void number(char *out, size_t size)
{
	switch (below(4)) {
	case 0:
		snprintf(out, size, "%u", below(100000));
		break;
	case 1:
		snprintf(out, size, "%llu", rnd());
		break;
	default:
		snprintf(out, size, "%s", any_number());
	}
}

/* A valid pool size that does not eat the guest's memory. */
static void pool_number(char *out, size_t size)
{
	if (below(2))
		snprintf(out, size, "%u", 16 + below(65536 - 16));
	else
		number(out, size);
	if (strtoull(out, NULL, 10) > 65536 && strtoull(out, NULL, 10) <= 1048576)
		snprintf(out, size, "65536");
}

/* How many words @s has, as the kernel's argv_split() counts them. */
static unsigned int words(const char *s)
{
	unsigned int n = 0;

	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		n++;
		while (*s && !isspace((unsigned char)*s))
			s++;
	}
	return n;
}

/* One command of the grammar for ctl. */
static enum verb ctl_command(char *c, size_t size)
{
	static const char * const verbs[] = { "start", "stop", "print", "mark",
					       "reset" };
	static const char * const opts[] = { "stacks", "top", "older-than",
					      "since-mark", "top", "bogus" };
	char n[64];
	size_t o;
	unsigned int v = below(12), i;

	if (v < 5) {
		o = snprintf(c, size, "%s %s", verbs[v], any_cache());
		if (v == V_PRINT) {
			for (i = below(4); i > 0 && o < size - 40; i--) {
				const char *opt = pick(opts, ARRAY_SIZE(opts));

				o += snprintf(c + o, size - o, " %s", opt);
				if (!strcmp(opt, "top") || !strcmp(opt, "older-than")) {
					if (below(8)) {
						number(n, sizeof(n));
						o += snprintf(c + o, size - o, " %s", n);
					}
				}
			}
		}
		return v;
	}
	switch (v) {
	case 5:
		pool_number(n, sizeof(n));
		snprintf(c, size, "pool %s", n);
		oracle = in_range(n, "", 16, 1048576);
		return V_POOL;
	case 6:
		number(n, sizeof(n));
		snprintf(c, size, "limit %s", n);
		oracle = in_range(n, "", 1, ~0ULL);
		return V_LIMIT;
	case 7:
	case 8:
		switch (below(8)) {
		case 0:
			snprintf(c, size, "syscall start");
			break;
		case 1:
			o = snprintf(c, size, "syscall start pid");
			for (i = below(20); i > 0; i--) {
				if (below(4))
					o += snprintf(c + o, size - o, " %u", 1 + below(400));
				else
					o += snprintf(c + o, size - o, " %s", any_number());
			}
			i = words(c + strlen("syscall start pid"));
			if (!i || i > 16)
				oracle = INVALID;
			break;
		case 2:
			o = snprintf(c, size, "syscall start comm %s", any_comm());
			if (o > strlen("syscall start comm ") + 15)
				oracle = INVALID;
			break;
		case 3:
		case 4:
			snprintf(c, size, "syscall stop");
			break;
		case 5:
			snprintf(c, size, "syscall clear");
			break;
		case 6:
			snprintf(n, sizeof(n), "%s", pick(sizes, ARRAY_SIZE(sizes)));
			snprintf(c, size, "syscall size %s", n);
			oracle = in_range(n, "KM", 4096, 256 << 20);
			break;
		default:
			snprintf(c, size, "syscall %s", pick(verb_names, ARRAY_SIZE(verb_names)));
		}
		return V_SYSCALL;
	case 9:
	case 10:
		if (below(2)) {
			snprintf(c, size, "kmemtrace stop");
		} else {
			o = snprintf(c, size, "kmemtrace start");
			for (i = below(4); i > 0; i--)
				o += snprintf(c + o, size - o, " %s", any_cache());
		}
		return V_KMEMTRACE;
	default:
		snprintf(c, size, "%s", pick(verb_names, ARRAY_SIZE(verb_names)));
		return V_GARBAGE;
	}
}

/* Mutate @c (@len bytes) in place; the new length. */
static size_t mutate(char *c, size_t len, size_t size)
{
	size_t i, n;
	char num[64];

	switch (below(9)) {
	case 0:		/* a flipped byte */
		if (len)
			c[below(len)] = rnd();
		return len;
	case 1:		/* a NUL */
		if (len)
			c[below(len)] = 0;
		return len;
	case 2:		/* cut short: a partial write */
		return below(len + 1);
	case 3:		/* garbage words */
		n = below(4) + 1;
		while (n-- && len + 30 < size)
			len += snprintf(c + len, size - len, " %s",
					below(2) ? any_cache() : any_number());
		return len;
	case 4:		/* a huge number */
		number(num, sizeof(num));
		return len + snprintf(c + len, size - len, " %s%s", num, num);
	case 5:		/* random bytes */
		n = below(300);
		for (i = 0; i < n; i++)
			c[i] = rnd();
		return n;
	case 6:		/* overlong */
		n = 250 + below(size - 260);
		for (i = len; i < n; i++)
			c[i] = below(3) ? 'a' + below(26) : ' ';
		return n;
	case 7:		/* whitespace */
		n = below(6);
		while (n-- && len + 2 < size)
			c[len++] = " \t\n\r\v"[below(5)];
		return len;
	default:	/* an 8-bit name */
		for (i = 0; i < len; i++)
			if (c[i] == '-')
				c[i] = 0x80 | rnd();
		return len;
	}
}

/*
 * ENOENT: slabtrace is not loaded; EAGAIN: it is being loaded (no file
 * opens until the load is done); ENXIO, ENODEV: it is being unloaded
 * (debugfs, /proc/slabtrace cannot take a reference on the module);
 * EUSERS: a 9th process opening kptrace/queue or kptrace/pipe; EBUSY: a
 * reader too many; ENODATA: a stream's cpuN before its first start.
 */
static int expected_open_errno(int err, int reader)
{
	return err == ENOENT || err == EAGAIN || err == ENXIO || err == ENODEV ||
	       (reader && (err == EBUSY || err == EUSERS || err == ENODATA));
}

/*
 * ESPIPE: pwrite() to a file that cannot seek (ctl opened for reading too
 * is a seq_file; enable and buffer_kb cannot seek).
 */
static int expected_write_errno(int err, int bad_address, int pwrite)
{
	switch (err) {
	case ESPIPE:
		return pwrite;
	case EINVAL: case ENOENT: case E2BIG: case ERANGE: case EBUSY:
	case ENOMEM: case ENODEV: case EPERM: case EEXIST: case ENOSPC:
	case ENAMETOOLONG: case ENODATA: case EOPNOTSUPP: case EINTR:
		return 1;
	case EFAULT:
		return bad_address;
	}
	return 0;
}

static void unexpected(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("fuzz: UNEXPECTED: ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	me->unexpected++;
}

/* open(), counted, an unexpected errno reported: the fd or -1. */
static int open_file(const char *path, int flags)
{
	int fd, err, reader = (flags & O_ACCMODE) == O_RDONLY;

	op_begin("open %s%s", path, NULL, 0);
	fd = open(path, flags);
	err = errno;
	op_end();
	if (fd < 0) {
		count(me->open_err, err);
		if (!expected_open_errno(err, reader))
			unexpected("open %s for %s: %s", path,
				   reader ? "reading" : "writing", errname(err));
	}
	return fd;
}

static void one_write(void)
{
	static char c[CMD_MAX];
	const char *file;
	char path[128], esc[140];
	enum verb v;
	size_t len;
	ssize_t ret;
	int fd, err, bad = 0, positioned = 0;
	unsigned int t = below(10);

	oracle = DONT_KNOW;
	if (t < 7) {
		file = "ctl";
		v = ctl_command(c, sizeof(c));
	} else if (t < 9) {
		static const char * const en[] = { "0", "1", "1 kmalloc-64",
			"1 kmalloc-64 dentry stressirq_obj", "2", "-1", "1 no_such_cache",
			"0 kmalloc-64", "11", "1\n", "0\n" };

		file = "kmemtrace/enable";
		v = V_ENABLE;
		snprintf(c, sizeof(c), "%s", pick(en, ARRAY_SIZE(en)));
	} else {
		static const char * const kb[] = { "16", "24", "64", "1024", "4096",
			"15", "17", "0", "65544", "131072", "8k" };

		unsigned long long n;

		file = "kmemtrace/buffer_kb";
		v = V_BUFFER_KB;
		if (below(2))
			snprintf(c, sizeof(c), "%s", pick(kb, ARRAY_SIZE(kb)));
		else
			number(c, sizeof(c));
		oracle = in_range(c, "", 16, 65536);
		if (oracle == VALID && !plain_number(c, "", &n) && n % 8)
			oracle = INVALID;
	}
	len = strlen(c);
	if (below(10) < 3) {
		len = mutate(c, len, sizeof(c) - 1);
		v = V_GARBAGE;
		oracle = DONT_KNOW;
	}
	snprintf(path, sizeof(path), "%s/%s", below(2) ? ST : ST_DEBUGFS, file);
	fd = open_file(path, below(4) ? O_WRONLY : O_RDWR);
	if (fd < 0) {
		sleep_ms(1);	/* slabtrace is not loaded */
		return;
	}
	op_begin("write to %s: '%s'", file, c, len);
	switch (below(20)) {
	case 0:
		bad = 1;
		/* Not write(): the compiler would see the bad address. */
		ret = syscall(SYS_write, fd, 8L, len ? len : 1);
		break;
	case 1:
		positioned = 1;
		ret = pwrite(fd, c, len, below(2) ? (off_t)below(300) : (off_t)(rnd() >> 2));
		break;
	default:
		ret = write(fd, c, len);
	}
	err = ret < 0 ? errno : 0;
	op_end();
	close(fd);
	me->writes++;
	count(me->write_err, err);
	escape(esc, sizeof(esc), c, len);
	if (ret >= 0 && (size_t)ret != len && !bad) {
		unexpected("write of %zu bytes to %s returned %zd: '%s'", len, file,
			   ret, esc);
	} else if (ret < 0 && !expected_write_errno(err, bad, positioned)) {
		unexpected("write to %s: %s: '%s'", file, errname(err), esc);
	} else if (ret >= 0 && !bad && !positioned && oracle == INVALID) {
		unexpected("write to %s accepted an invalid command: '%s'", file, esc);
	} else if (ret < 0 && !bad && !positioned && oracle == VALID &&
		   (err == EINVAL || err == ERANGE)) {
		unexpected("write to %s refused a valid command: %s: '%s'", file,
			   errname(err), esc);
	} else if (ret >= 0 && !bad) {
		me->accepted[v]++;
	}
}

/* A random file of either tree (kptrace's stream aside), or NULL. */
static int random_file(char *path, size_t size)
{
	static const char * const dirs[] = {
		ST, ST "/slab", ST "/kptrace", ST "/kmemtrace",
		ST_DEBUGFS, ST_DEBUGFS "/slab", ST_DEBUGFS "/kptrace",
		ST_DEBUGFS "/kmemtrace",
	};
	char names[64][64];
	struct dirent *d;
	unsigned int n = 0;
	const char *dir = pick(dirs, ARRAY_SIZE(dirs));
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp)) && n < 64) {
		if (d->d_type != DT_REG || strlen(d->d_name) >= 64)
			continue;
		snprintf(names[n++], 64, "%s", d->d_name);
	}
	closedir(dp);
	if (!n)
		return -1;
	snprintf(path, size, "%s/%s", dir, names[below(n)]);
	return 0;
}

static int expected_read_errno(int err)
{
	switch (err) {
	case EAGAIN: case EINVAL: case ENODATA: case EINTR: case ENOMEM:
	case EBUSY: case ESPIPE:
		return 1;
	}
	return 0;
}

/*
 * More processes at once than kptrace keeps as readers (8): each opens
 * kptrace or kptrace_pipe and reads it, together.  A child's unexpected
 * result is counted by its exit status.
 */
static void reader_crowd(void)
{
	static const char * const files[] = { ST "/kptrace/queue", ST "/kptrace/pipe" };
	static char buf[4096];
	int i, j, status, n = 12, fd;
	pid_t pids[12];
	ssize_t ret;

	op_begin("a crowd of %s readers%s", "kptrace", NULL, 0);
	for (i = 0; i < n; i++) {
		const char *path = pick(files, ARRAY_SIZE(files));

		pids[i] = fork();
		if (pids[i])
			continue;
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			_exit(!expected_open_errno(errno, 1));
		for (j = 0; j < 20; j++) {
			ret = read(fd, buf, sizeof(buf));
			if (ret < 0 && !expected_read_errno(errno))
				_exit(1);
			sleep_ms(5);
		}
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		if (pids[i] < 0)
			continue;
		if (waitpid(pids[i], &status, 0) == pids[i] &&
		    !(WIFEXITED(status) && !WEXITSTATUS(status)))
			unexpected("a kptrace reader of a crowd of %d failed", n);
	}
	op_end();
	me->crowds++;
}

static void one_read(void)
{
	static char buf[1 << 20];
	char path[128];
	unsigned int i, n;
	size_t size;
	ssize_t ret;
	off_t off;
	int fd, err;

	if (!below(200)) {
		reader_crowd();
		return;
	}
	/* Many command names: the contexts of the records made meanwhile. */
	if (below(2)) {
		snprintf(path, sizeof(path), "fz%u", below(100000));
		prctl(PR_SET_NAME, path);
	}
	if (random_file(path, sizeof(path))) {
		sleep_ms(1);	/* slabtrace is not loaded */
		return;
	}
	fd = open_file(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return;
	n = 1 + below(8);
	for (i = 0; i < n && !stopping(); i++) {
		if (below(4) == 0) {
			static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END, 7 };

			off = below(2) ? (off_t)below(20000) : (off_t)rnd();
			op_begin("lseek %s%s", path, NULL, 0);
			ret = lseek(fd, off, whence[below(4)]);
			err = ret < 0 ? errno : 0;
			op_end();
			/* A seq_file replays its reads: ENODATA as read(). */
			if (ret < 0 && err != EINVAL && err != ESPIPE &&
			    err != EOVERFLOW && err != ENODATA)
				unexpected("lseek %s: %s", path, errname(err));
			continue;
		}
		switch (below(4)) {
		case 0:
			size = below(16);
			break;
		case 1:
			size = below(4096);
			break;
		case 2:
			size = sizeof(buf);
			break;
		default:
			size = below(sizeof(buf));
		}
		op_begin("read %s%s", path, NULL, 0);
		if (below(8))
			ret = read(fd, buf, size);
		else
			ret = pread(fd, buf, size, below(100000));
		err = ret < 0 ? errno : 0;
		op_end();
		me->reads++;
		if (ret > 0)
			me->read_bytes += ret;
		count(me->read_err, err);
		if (ret > (ssize_t)size)
			unexpected("read %s: %zd bytes for a buffer of %zu", path, ret, size);
		else if (ret < 0 && !expected_read_errno(err))
			unexpected("read %s (%zu bytes): %s", path, size, errname(err));
	}
	close(fd);
}

static int loaded(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	FILE *f = fopen("/proc/modules", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			found = 1;
	fclose(f);
	return found;
}

static int load_module(const char *name, const char *params)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s.ko", moddir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	op_begin("insmod %s %s", path, params, strlen(params));
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	op_end();
	close(fd);
	return ret;
}

static int unload_module(const char *name)
{
	int ret;

	op_begin("rmmod %s%s", name, NULL, 0);
	ret = syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
	op_end();
	return ret;
}

/* Have the workers wait between two operations (for at most 10 s). */
static void hold_workers(int nworkers)
{
	long start = now_ms();
	int i, all;

	__atomic_store_n(&sh->hold, 1, __ATOMIC_RELEASE);
	do {
		sleep_ms(2);
		all = 1;
		for (i = 1; i < nworkers; i++)
			if (!__atomic_load_n(&sh->w[i].held, __ATOMIC_ACQUIRE))
				all = 0;
	} while (!all && now_ms() - start < 10000 && !stopping());
}

static void release_workers(void)
{
	__atomic_store_n(&sh->hold, 0, __ATOMIC_RELEASE);
}

/*
 * Unload @name (retried while it is in use) and load it again with
 * @params, which must load if @err is 0 and fail with @err if not (an
 * other outcome is unexpected); refused, it is loaded without them.  0 if
 * it was loaded again; an unloaded module is only loaded.
 */
static int reload(const char *name, const char *params, int err,
		  long *reloads, int nworkers)
{
	int held = below(2), tries, ret;

	if (!loaded(name)) {
		ret = load_module(name, "");
		if (ret && ret != -EEXIST)
			unexpected("insmod %s: %s", name, errname(-ret));
		return -1;
	}
	if (held)
		hold_workers(nworkers);
	for (tries = 0; tries < 100; tries++) {
		ret = unload_module(name);
		if (ret != -EAGAIN && ret != -EBUSY)
			break;
		sleep_ms(1 + below(5));
	}
	release_workers();
	if (ret) {
		if (ret != -EAGAIN && ret != -EBUSY)
			unexpected("rmmod %s: %s", name, errname(-ret));
		return -1;
	}
	sleep_ms(below(50));
	ret = load_module(name, params);
	if (ret == -EEXIST) {
		/* Loaded by someone else meanwhile: the parameters unused. */
		(*reloads)++;
		return 0;
	}
	if (-ret != err) {
		if (!err)
			unexpected("insmod %s %s: %s, where it should load",
				   name, params, errname(-ret));
		else if (!ret)
			unexpected("insmod %s %s: loaded, where it should fail with %s",
				   name, params, errname(err));
		else
			unexpected("insmod %s %s: %s, where it should fail with %s",
				   name, params, errname(-ret), errname(err));
	} else if (*params) {
		if (err)
			me->params_refused++;
		else
			me->params_loaded++;
	}
	if (ret) {
		ret = load_module(name, "");
		if (ret && ret != -EEXIST) {
			unexpected("insmod %s: %s", name, errname(-ret));
			return -1;
		}
	}
	(*reloads)++;
	return 0;
}

/* @cmd to ctl, for the reloader: 0 or an errno. */
static int ctl_write(const char *cmd)
{
	int fd = open(ST "/ctl", O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	op_begin("reloader's write to %s: '%s'", "ctl", cmd, strlen(cmd));
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = errno;
	op_end();
	close(fd);
	return err;
}

static void reloader(int nworkers)
{
	int traced;
	unsigned int i;
	/*
	 * slabtrace's parameters, and what the documentation says of each:
	 * 0, it loads; else the errno of its refusal.  Out of the range
	 * slabtrace checks at load: EINVAL; a number too big for the
	 * kernel's parser (or kptrace_size's): ERANGE; not a size: EINVAL.
	 */
	static const struct {
		const char *params;
		int err;
	} params[] = {
		{ "", 0 }, { "", 0 }, { "", 0 }, { "", 0 },
		{ "pool_size=16", 0 }, { "pool_size=15", EINVAL },
		{ "pool_size=1048577", EINVAL },
		{ "pool_size=99999999999999999999", ERANGE },
		{ "record_limit=1", 0 }, { "kmemtrace=1", 0 },
		{ "kmemtrace_buffer_kb=20", EINVAL },
		/* One page at least: 16 KiB on arm64-16k (below). */
		{ "kptrace_size=4K", 0 }, { "kptrace_size=10X", EINVAL },
		{ "kptrace_size=18446744073709555712", ERANGE },
		{ "lifetime_slots=100", 0 }, { "lifetime_slots=15", EINVAL },
		{ "snapshot_idle_secs=0", EINVAL },
	};
	int err;

	while (!stopping()) {
		sleep_ms(100 + below(400));
		if (stopping())
			break;
		if (below(3)) {
			/* Often while its cache is traced. */
			traced = below(2) && !ctl_write("start stressirq_obj");
			if (!reload("stressirq", "", 0, &me->irq_reloads,
				    nworkers))
				me->irq_traced += traced;
		} else {
			i = below(ARRAY_SIZE(params));
			err = params[i].err;
			if (!strcmp(params[i].params, "kptrace_size=4K") &&
			    sysconf(_SC_PAGESIZE) > 4096)
				err = ERANGE;
			reload("slabtrace", params[i].params, err,
			       &me->st_reloads, nworkers);
		}
	}
	/* Leave both loaded. */
	if (!loaded("stressirq") && load_module("stressirq", ""))
		unexpected("insmod stressirq at the end failed");
	if (!loaded("slabtrace") && load_module("slabtrace", ""))
		unexpected("insmod slabtrace at the end failed");
}

/* What scripts/vm/run.sh calls a splat. */
static const char * const splats[] = {
	"BUG:", "WARNING:", "Oops", "general protection", "Call Trace:",
	"scheduling while atomic", "possible recursive locking", "stall",
	"Kernel panic", "list_add corruption", "list_del corruption",
	"blocked for more than", "KASAN", "lockdep",
};

/*
 * Follow /dev/kmsg from its end until killed, and print every splat
 * line: the kernel log is too small to keep the whole run's warnings.
 */
static void kmsg_watch(void)
{
	char rec[2048], *msg;
	unsigned int i;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY);

	if (fd < 0 || lseek(fd, 0, SEEK_END) < 0) {
		printf("fuzz: cannot follow /dev/kmsg: %s\n", errname(errno));
		sh->splats++;
		return;
	}
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE) {
			sh->kmsg_lost++;	/* overwritten before we read it */
			continue;
		}
		if (n <= 0)
			return;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		for (i = 0; i < ARRAY_SIZE(splats); i++) {
			if (strstr(msg, splats[i])) {
				sh->splats++;
				printf("fuzz: SPLAT: %s", msg);
				fflush(stdout);
				break;
			}
		}
	}
}

static void worker(int idx, int nwriters, int nworkers, unsigned long long seed)
{
	me = &sh->w[idx];
	rng = seed + idx;
	if (!rng)
		rng = 1;
	if (idx == 0) {
		reloader(nworkers);
		return;
	}
	while (!stopping()) {
		maybe_hold();
		if (idx <= nwriters)
			one_write();
		else
			one_read();
	}
}

static void print_errnos(const char *what, long total, long *v)
{
	int e;

	if (total >= 0)
		printf("fuzz: %s %ld:", what, total);
	else
		printf("fuzz: %s:", what);
	for (e = 0; e < NR_ERRNO; e++)
		if (v[e])
			printf(" %s %ld,", errname(e), v[e]);
	printf("\n");
}

static const char usage[] =
	"usage: fuzz [-t SECS] [-n WRITES] [-s SEED] [-w N] [-r N] [-H SECS] [-m DIR]\n";

int main(int argc, char **argv)
{
	unsigned long long seed = 0;
	int secs = 60, nwriters = 3, nreaders = 2, hang = 120;
	int opt, i, e, nworkers, hung = 0, left;
	long min_writes = 0;
	pid_t watcher;
	struct worker sum = { };
	long start, last = 0;

	while ((opt = getopt(argc, argv, "t:n:s:w:r:H:m:")) != -1) {
		switch (opt) {
		case 't':
			secs = atoi(optarg);
			break;
		case 'n':
			min_writes = atol(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			nwriters = atoi(optarg);
			break;
		case 'r':
			nreaders = atoi(optarg);
			break;
		case 'H':
			hang = atoi(optarg);
			break;
		case 'm':
			moddir = optarg;
			break;
		default:
			fprintf(stderr, "%s", usage);
			return 2;
		}
	}
	nworkers = 1 + nwriters + nreaders;
	if (nwriters < 1 || nreaders < 0 || nworkers > MAX_WORKERS) {
		fprintf(stderr, "fuzz: 1 to %d workers\n", MAX_WORKERS - 2);
		return 2;
	}
	if (!seed)
		seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
	printf("fuzz: seed %llu, %d s (and %ld writes), %d writers, %d readers\n",
	       seed, secs, min_writes, nwriters, nreaders);
	fflush(stdout);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	watcher = fork();
	if (watcher < 0)
		return 2;
	if (!watcher) {
		kmsg_watch();
		_exit(0);
	}
	for (i = 0; i < nworkers; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (!pid) {
			worker(i, nwriters, nworkers, seed);
			fflush(stdout);
			_exit(0);
		}
		sh->w[i].pid = pid;
	}

	/* Watch: progress every 10 s, hung operations. */
	start = now_ms();
	for (;;) {
		long t = now_ms(), elapsed = (t - start) / 1000, writes = 0;

		for (i = 0; i < nworkers; i++)
			writes += __atomic_load_n(&sh->w[i].writes, __ATOMIC_RELAXED);
		if (elapsed >= secs &&
		    (writes >= min_writes || elapsed >= 4L * secs))
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
		for (i = 0; i < nworkers; i++) {
			struct worker *w = &sh->w[i];
			long s = __atomic_load_n(&w->op_start_ms, __ATOMIC_ACQUIRE);

			if (s && !w->hung && t - s > hang * 1000L) {
				w->hung = 1;
				hung++;
				printf("fuzz: HUNG: worker %d (pid %d) for %ld s in: %s\n",
				       i, w->pid, (t - s) / 1000, w->what);
				fflush(stdout);
			}
		}
		left = 0;
		for (i = 0; i < nworkers; i++)
			if (sh->w[i].pid && waitpid(sh->w[i].pid, NULL, WNOHANG) == 0)
				left++;
			else
				sh->w[i].pid = 0;
		if (!left)
			break;
		if (hung && elapsed >= secs + hang)
			break;		/* leave the hung ones */
		if (elapsed >= last + 10) {
			long writes = 0, reads = 0;

			last = elapsed;
			for (i = 0; i < nworkers; i++) {
				writes += sh->w[i].writes;
				reads += sh->w[i].reads;
			}
			printf("fuzz: %ld s: writes %ld, reads %ld, ", elapsed, writes, reads);
			printf("reloads: slabtrace %ld, stressirq %ld\n",
			       sh->w[0].st_reloads, sh->w[0].irq_reloads);
			fflush(stdout);
		}
		sleep_ms(200);
	}

	sleep_ms(500);		/* the last messages */
	kill(watcher, SIGKILL);
	waitpid(watcher, NULL, 0);
	for (i = 0; i < nworkers; i++) {
		struct worker *w = &sh->w[i];

		sum.writes += w->writes;
		sum.reads += w->reads;
		sum.read_bytes += w->read_bytes;
		sum.crowds += w->crowds;
		sum.unexpected += w->unexpected;
		for (e = 0; e < NR_ERRNO; e++) {
			sum.write_err[e] += w->write_err[e];
			sum.read_err[e] += w->read_err[e];
			sum.open_err[e] += w->open_err[e];
		}
		for (e = 0; e < NR_VERB; e++)
			sum.accepted[e] += w->accepted[e];
	}
	print_errnos("writes", sum.writes, sum.write_err);
	printf("fuzz: accepted:");
	for (e = 0; e < NR_VERB; e++)
		printf(" %s %ld,", verb_names[e], sum.accepted[e]);
	printf("\n");
	printf("fuzz: reads %ld (%ld bytes), crowds of kptrace readers %ld\n", sum.reads,
	       sum.read_bytes, sum.crowds);
	print_errnos("read results", sum.reads, sum.read_err);
	sum.open_err[0] = 0;
	print_errnos("opens refused", -1, sum.open_err);
	printf("fuzz: reloads: slabtrace %ld, stressirq %ld (after a start of its cache %ld)\n",
	       sh->w[0].st_reloads, sh->w[0].irq_reloads, sh->w[0].irq_traced);
	printf("fuzz: slabtrace's parameters: loaded %ld, refused %ld (as documented)\n",
	       sh->w[0].params_loaded, sh->w[0].params_refused);
	printf("fuzz: kernel log records lost to /dev/kmsg overruns: %ld\n", sh->kmsg_lost);
	printf("fuzz: unexpected %ld, hung %d, splats %ld\n", sum.unexpected, hung,
	       sh->splats);
	fflush(stdout);
	return sum.unexpected || hung || sh->splats;
}
