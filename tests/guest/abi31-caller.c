// SPDX-License-Identifier: GPL-2.0
/*
 * A 31-bit s390 caller of execns(2), for test-execns-abi on s390x kernels
 * with CONFIG_COMPAT.  Debian has no 31-bit s390 C library, so this is
 * freestanding (-m31 -nostdlib): its own _start, raw "svc 0" calls with
 * the number in r1, 31-bit pointers in argv and envp.
 *
 * Usage: abi31-caller NR FLAGS PATH ARG0 ARG...
 * Through compat slot NR it tries three calls that must fail, writing
 * "abi31 E1 E2 E3 SAME" to stdout: their raw returns (-ENOENT, -EINVAL,
 * -EFAULT expected) and 1 if its uts and ipc namespaces are the same after
 * them as before (0 if not).  Then execns(FLAGS, PATH, {ARG0, ARG...,
 * NULL}, its own envp); should that fail: "errno N", exit 99.
 */

#define NR_WRITE	4
#define NR_READLINK	85
#define BAD_FLAG	0x00000100	/* CLONE_VM: never a namespace flag */

static long sc4(long nr, long a, long b, long c, long d)
{
	register long r1 __asm__("1") = nr;
	register long r2 __asm__("2") = a;
	register long r3 __asm__("3") = b;
	register long r4 __asm__("4") = c;
	register long r5 __asm__("5") = d;

	__asm__ __volatile__("svc 0" : "+d"(r2) : "d"(r1), "d"(r3), "d"(r4), "d"(r5) : "memory", "cc");
	return r2;
}

static long parse(const char *s)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

/* Appends " N" (N may be negative) at p; returns the new end. */
static char *put(char *p, long v)
{
	char d[12];
	int n = 0;

	*p++ = ' ';
	if (v < 0) {
		*p++ = '-';
		v = -v;
	}
	do
		d[n++] = '0' + v % 10;
	while ((v /= 10) && n < 11);
	while (n)
		*p++ = d[--n];
	return p;
}

static void say(const char *tag, long a, long b, long c, int n, long d)
{
	char buf[64], *p = buf;

	while (*tag)
		*p++ = *tag++;
	p = put(p, a);
	if (n > 1)
		p = put(p, b);
	if (n > 2)
		p = put(p, c);
	if (n > 3)
		p = put(p, d);
	*p++ = '\n';
	sc4(NR_WRITE, 1, (long)buf, p - buf, 0);
}

/* The targets of /proc/self/ns/uts and ipc, one after the other, in @buf. */
static long ns_links(char *buf, long len)
{
	long a = sc4(NR_READLINK, (long)"/proc/self/ns/uts", (long)buf, len / 2, 0);
	long b = sc4(NR_READLINK, (long)"/proc/self/ns/ipc", (long)(buf + len / 2), len / 2, 0);

	return a > 0 && b > 0 ? a + b : -1;
}

static int same_links(const char *x, const char *y, long len)
{
	while (len--)
		if (*x++ != *y++)
			return 0;
	return 1;
}

int abi31_main(int argc, char **argv);

int abi31_main(int argc, char **argv)
{
	char **envp = argv + argc + 1;
	char *bad_argv[] = { 0, (char *)8, 0 };
	char before[128] = { 0 }, after[128] = { 0 };
	long nr, flags, e1, e2, e3, same;

	if (argc < 5)
		return 2;
	bad_argv[0] = argv[3];
	nr = parse(argv[1]);
	flags = parse(argv[2]);
	same = ns_links(before, sizeof(before));
	e1 = sc4(nr, flags, (long)"/no/such/program", (long)(argv + 4), (long)envp);
	e2 = sc4(nr, flags | BAD_FLAG, (long)argv[3], (long)(argv + 4), (long)envp);
	e3 = sc4(nr, flags, (long)argv[3], (long)bad_argv, (long)envp);
	same = same > 0 && ns_links(after, sizeof(after)) == same &&
	       same_links(before, after, sizeof(before));
	say("abi31", e1, e2, e3, 4, same);
	e1 = sc4(nr, flags, (long)argv[3], (long)(argv + 4), (long)envp);
	say("errno", -e1, 0, 0, 1, 0);
	return 99;
}

/*
 * The process starts with argc at 0(r15) and argv from 4(r15); the
 * callee gets a 96-byte frame, 8-byte aligned, with a null back chain, as
 * the 31-bit ELF ABI has it, and its return value goes to exit (syscall 1).
 */
__asm__(".globl _start\n"
    "_start:\n"
    "	l	%r2,0(%r15)\n"
    "	la	%r3,4(%r15)\n"
    "	lhi	%r0,-8\n"
    "	nr	%r15,%r0\n"
    "	ahi	%r15,-96\n"
    "	xc	0(4,%r15),0(%r15)\n"
    "	brasl	%r14,abi31_main\n"
    "	lhi	%r1,1\n"
    "	svc	0\n");
