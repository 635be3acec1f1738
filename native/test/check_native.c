/* TEST ONLY: drives every JNI entry of libsdp4j without a JVM (fake_jni.c), under ASan/UBSan or valgrind.
 *   check_native missing  SHIM    librdmacm cannot be loaded: every rsocket entry throws and says why
 *   check_native real     SHIM    the real librdmacm (no RDMA device on the host): probe and socket say so;
 *                                 argument validation of every entry; rpoll over kernel fds with a wakeup;
 *                                 the libucp entries' validation (libucp.so.0 dlopen'ed)
 *   check_native shim     SHIM    the rsocket calls over kernel TCP: the full lifecycle, data, options, errors
 * Output: one line per check; exit status 1 on any failure. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_jni.h"
#include "sdp4j.h"

static JNIEnv *env;
static int passed, failed;
static const jclass C = NULL;

#define CHECK(cond, ...) do { \
	if (cond) { passed++; } else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

/* Runs expr; requires an exception of class cls whose message contains sub. */
#define THROWS(cls, sub, expr) do { \
	fj_clear(); (void)(expr); \
	CHECK(fj_pending && !strcmp(fj_exc_class, cls) && strstr(fj_exc_msg, sub), \
	      "%s: expected %s containing \"%s\", got %s \"%s\"", #expr, cls, sub, \
	      fj_pending ? fj_exc_class : "no exception", fj_exc_msg); \
	fj_clear(); \
} while (0)

#define OK(expr) ({ fj_clear(); __typeof__(expr) v_ = (expr); \
	CHECK(!fj_pending, "%s: unexpected %s \"%s\"", #expr, fj_exc_class, fj_exc_msg); fj_clear(); v_; })

#define SOCKX "java/net/SocketException"

static jbyteArray loopback(void)
{
	static const unsigned char a[4] = { 127, 0, 0, 1 };
	return fj_bytes(4, a);
}

static char *jstr(jstring s) /* caller frees with fj_free(s) */
{
	return s ? (char *)fj_data(s) : NULL;
}

/* Every entry that takes an rsocket: with librdmacm not loaded, each throws naming why. */
static void check_missing(void)
{
	jbyteArray b = fj_bytes(8, NULL), a = loopback();
	jstring r, name = fj_string("libsdp4j-does-not-exist.so.1");
	jintArray fds = fj_ints(1, NULL);
	jshortArray ev = fj_shorts(1, NULL), rev = fj_shorts(1, NULL);
	const char *why = "rsockets unavailable: dlopen libsdp4j-does-not-exist.so.1: cannot open shared object file";
	int efd;

	r = OK(Java_org_sdp4j_rsocket_Native_init(env, C, name));
	CHECK(r && strstr(jstr(r), why + strlen("rsockets unavailable: ")), "init: %s", r ? jstr(r) : "(null)");
	fj_free(r);
	r = OK(Java_org_sdp4j_rsocket_Native_probe(env, C));
	CHECK(r && strstr(jstr(r), "dlopen libsdp4j-does-not-exist.so.1"), "probe: %s", r ? jstr(r) : "(null)");
	fj_free(r);
	fj_free(name);
	name = fj_string("libc.so.6");
	r = OK(Java_org_sdp4j_rsocket_Native_init(env, C, name));
	CHECK(r && strstr(jstr(r), "dlsym rsocket in libc.so.6") && strstr(jstr(r), "undefined symbol"),
	      "init libc: %s", r ? jstr(r) : "(null)");
	fj_free(r);
	fj_free(name);
	why = "rsockets unavailable: dlsym rsocket in libc.so.6";
	THROWS(SDP4J_NPE, "library name is null", Java_org_sdp4j_rsocket_Native_init(env, C, NULL));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_socket(env, C, JNI_FALSE));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_bind(env, C, 3, a, 0, 1));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_listen(env, C, 3, 1));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_connect(env, C, 3, a, 0, 1));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_finishConnect(env, C, 3, POLLOUT, a, 0, 1));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_accept(env, C, 3));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_sockname(env, C, 3, JNI_TRUE));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_read(env, C, 3, b, 0, 8));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_readDirect(env, C, 3, NULL, 0, 8));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_write(env, C, 3, b, 0, 8));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_writeDirect(env, C, 3, NULL, 0, 8));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_available(env, C, 3));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_shutdown(env, C, 3, 1));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_close(env, C, 3));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_setOption(env, C, 3, 1, 1));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_getOption(env, C, 3, 1));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_poll(env, C, 3, POLLIN, -1, 0));
	THROWS(SOCKX, why, Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 1, -1, 0, JNI_TRUE));
	/* eventfds need no librdmacm */
	efd = OK(Java_org_sdp4j_rsocket_Native_eventfd(env, C));
	OK((Java_org_sdp4j_rsocket_Native_signal(env, C, efd), 0));
	OK((Java_org_sdp4j_rsocket_Native_closeEvent(env, C, efd), 0));
	THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_closeEvent(env, C, efd));
	fj_free(b); fj_free(a); fj_free(fds); fj_free(ev); fj_free(rev);
}

/* Bad arguments to every entry; descriptors are checked before anything reaches librdmacm. */
static void check_validation(void)
{
	jbyteArray b = fj_bytes(8, NULL), a = loopback(), a5 = fj_bytes(5, NULL);
	jobject d = fj_direct(8), h = fj_heapbuf(8);
	jintArray fds = fj_ints(2, NULL);
	jshortArray ev = fj_shorts(2, NULL), rev = fj_shorts(1, NULL);
	const jint badfds[] = { -1, -77, 0, 1, 2, 99999, SDP4J_FD_MAX, INT_MAX };
	const int CONN = 900, OPEN = 901, LISTEN = 902; /* pretend descriptors: never handed to librdmacm below */
	size_t i;

	for (i = 0; i < sizeof badfds / sizeof badfds[0]; i++) {
		jint fd = badfds[i];
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_bind(env, C, fd, a, 0, 1));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_listen(env, C, fd, 1));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_connect(env, C, fd, a, 0, 1));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_finishConnect(env, C, fd, POLLOUT, a, 0, 1));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_accept(env, C, fd));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_sockname(env, C, fd, JNI_FALSE));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_read(env, C, fd, b, 0, 8));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_readDirect(env, C, fd, d, 0, 8));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_write(env, C, fd, b, 0, 8));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_writeDirect(env, C, fd, d, 0, 8));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_available(env, C, fd));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_shutdown(env, C, fd, 1));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_close(env, C, fd));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_setOption(env, C, fd, 1, 1));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_getOption(env, C, fd, 1));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_poll(env, C, fd, POLLIN, -1, 0));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_pollListener(env, C, fd, -1, 0, JNI_TRUE));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_signal(env, C, fd));
		THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_closeEvent(env, C, fd));
	}

	sdp4j_fd_set(CONN, FD_CONNECTED);
	sdp4j_fd_set(OPEN, FD_OPEN);
	sdp4j_fd_set(LISTEN, FD_LISTEN);
	/* wrong state */
	THROWS(SOCKX, "not connected", Java_org_sdp4j_rsocket_Native_read(env, C, OPEN, b, 0, 8));
	THROWS(SOCKX, "listening", Java_org_sdp4j_rsocket_Native_write(env, C, LISTEN, b, 0, 8));
	THROWS(SOCKX, "connected", Java_org_sdp4j_rsocket_Native_accept(env, C, CONN));
	THROWS(SOCKX, "connected", Java_org_sdp4j_rsocket_Native_connect(env, C, CONN, a, 0, 1));
	THROWS(SOCKX, "connected", Java_org_sdp4j_rsocket_Native_bind(env, C, CONN, a, 0, 1));
	THROWS(SOCKX, "not connected", Java_org_sdp4j_rsocket_Native_finishConnect(env, C, OPEN, POLLOUT, a, 0, 1));
	THROWS(SOCKX, "not connected", Java_org_sdp4j_rsocket_Native_shutdown(env, C, OPEN, 1));
	THROWS(SOCKX, "not connected", Java_org_sdp4j_rsocket_Native_available(env, C, LISTEN));
	THROWS(SOCKX, "not a wakeup eventfd", Java_org_sdp4j_rsocket_Native_poll(env, C, CONN, POLLIN, CONN, 0));
	THROWS(SOCKX, "connected", Java_org_sdp4j_rsocket_Native_pollListener(env, C, CONN, -1, 0, JNI_TRUE));
	THROWS(SOCKX, "not a wakeup eventfd", Java_org_sdp4j_rsocket_Native_pollListener(env, C, LISTEN, LISTEN, 0, JNI_TRUE));
	{
		jint efd = OK(Java_org_sdp4j_rsocket_Native_eventfd(env, C));

		THROWS(SOCKX, "wakeup", Java_org_sdp4j_rsocket_Native_read(env, C, efd, b, 0, 8));
		THROWS(SOCKX, "wakeup", Java_org_sdp4j_rsocket_Native_close(env, C, efd));
		OK((Java_org_sdp4j_rsocket_Native_closeEvent(env, C, efd), 0));
	}
	/* byte[] and ByteBuffer arguments */
	THROWS(SDP4J_NPE, "buffer is null", Java_org_sdp4j_rsocket_Native_read(env, C, CONN, NULL, 0, 1));
	THROWS(SDP4J_NPE, "buffer is null", Java_org_sdp4j_rsocket_Native_write(env, C, CONN, NULL, 0, 1));
	THROWS(SDP4J_IOOBE, "offset -1, length 1", Java_org_sdp4j_rsocket_Native_read(env, C, CONN, b, -1, 1));
	THROWS(SDP4J_IOOBE, "offset 0, length -1", Java_org_sdp4j_rsocket_Native_read(env, C, CONN, b, 0, -1));
	THROWS(SDP4J_IOOBE, "offset 0, length 9", Java_org_sdp4j_rsocket_Native_read(env, C, CONN, b, 0, 9));
	THROWS(SDP4J_IOOBE, "out of bounds for length 8", Java_org_sdp4j_rsocket_Native_write(env, C, CONN, b, 8, 1));
	THROWS(SDP4J_IOOBE, "out of bounds", Java_org_sdp4j_rsocket_Native_write(env, C, CONN, b, INT_MAX, 2));
	THROWS(SDP4J_IOOBE, "out of bounds", Java_org_sdp4j_rsocket_Native_read(env, C, CONN, b, 4, INT_MAX));
	THROWS(SDP4J_NPE, "buffer is null", Java_org_sdp4j_rsocket_Native_readDirect(env, C, CONN, NULL, 0, 1));
	THROWS(SDP4J_NPE, "buffer is null", Java_org_sdp4j_rsocket_Native_writeDirect(env, C, CONN, NULL, 0, 1));
	THROWS(SDP4J_IAE, "not a direct buffer", Java_org_sdp4j_rsocket_Native_readDirect(env, C, CONN, h, 0, 1));
	THROWS(SDP4J_IAE, "not a direct buffer", Java_org_sdp4j_rsocket_Native_writeDirect(env, C, CONN, h, 0, 1));
	THROWS(SDP4J_IOOBE, "offset 4, length 5", Java_org_sdp4j_rsocket_Native_readDirect(env, C, CONN, d, 4, 5));
	THROWS(SDP4J_IOOBE, "offset -3", Java_org_sdp4j_rsocket_Native_writeDirect(env, C, CONN, d, -3, 1));
	THROWS(SDP4J_IOOBE, "out of bounds", Java_org_sdp4j_rsocket_Native_writeDirect(env, C, CONN, d, 1, INT_MAX));
	/* addresses */
	THROWS(SDP4J_NPE, "address is null", Java_org_sdp4j_rsocket_Native_bind(env, C, OPEN, NULL, 0, 1));
	THROWS(SDP4J_NPE, "address is null", Java_org_sdp4j_rsocket_Native_connect(env, C, OPEN, NULL, 0, 1));
	THROWS(SDP4J_IAE, "4 or 16 bytes, not 5", Java_org_sdp4j_rsocket_Native_bind(env, C, OPEN, a5, 0, 1));
	THROWS(SDP4J_IAE, "must be in 1..", Java_org_sdp4j_rsocket_Native_serviceSlots(env, C, 0, 64));
	THROWS(SDP4J_IAE, "must be in 1..", Java_org_sdp4j_rsocket_Native_serviceSlots(env, C, 1024, -1));
	THROWS(SDP4J_IAE, "must be in 1..", Java_org_sdp4j_rsocket_Native_serviceSlots(env, C, INT_MAX, 64));
	OK((Java_org_sdp4j_rsocket_Native_serviceSlots(env, C, 1024, 64), 0));
	{
		jintArray st = OK(Java_org_sdp4j_rsocket_Native_serviceState(env, C));

		CHECK(st && (*env)->GetArrayLength(env, st) == 6, "serviceState: 6 values");
		fj_free(st);
	}
	THROWS(SDP4J_IAE, "4 or 16 bytes, not 5", Java_org_sdp4j_rsocket_Native_connect(env, C, OPEN, a5, 0, 1));
	THROWS(SDP4J_IAE, "port out of range: 65536", Java_org_sdp4j_rsocket_Native_connect(env, C, OPEN, a, 0, 65536));
	THROWS(SDP4J_IAE, "port out of range: -1", Java_org_sdp4j_rsocket_Native_bind(env, C, OPEN, a, 0, -1));
	/* options, shutdown, poll arguments */
	THROWS(SDP4J_IAE, "unknown option id 0", Java_org_sdp4j_rsocket_Native_setOption(env, C, CONN, 0, 1));
	THROWS(SDP4J_IAE, "unknown option id 99", Java_org_sdp4j_rsocket_Native_getOption(env, C, CONN, 99));
	THROWS(SDP4J_IAE, "unknown option id -5", Java_org_sdp4j_rsocket_Native_getOption(env, C, CONN, -5));
	THROWS(SDP4J_IAE, "bad 'how' 7", Java_org_sdp4j_rsocket_Native_shutdown(env, C, CONN, 7));
	THROWS(SDP4J_NPE, "fds is null", Java_org_sdp4j_rsocket_Native_pollMany(env, C, NULL, ev, rev, 0, -1, 0, JNI_TRUE));
	THROWS(SDP4J_NPE, "events is null", Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, NULL, rev, 0, -1, 0, JNI_TRUE));
	THROWS(SDP4J_NPE, "revents is null", Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, NULL, 0, -1, 0, JNI_TRUE));
	THROWS(SDP4J_IOOBE, "n 2 out of bounds", Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 2, -1, 0, JNI_TRUE));
	THROWS(SDP4J_IOOBE, "n -1 out of bounds", Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, -1, -1, 0, JNI_TRUE));
	THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 1, 0, 0, JNI_TRUE));
	THROWS(SOCKX, "not a wakeup eventfd", Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 1, CONN, 0, JNI_TRUE));
	sdp4j_fd_set(CONN, FD_NONE);
	sdp4j_fd_set(OPEN, FD_NONE);
	sdp4j_fd_set(LISTEN, FD_NONE);
	fj_free(b); fj_free(a); fj_free(a5); fj_free(d); fj_free(h); fj_free(fds); fj_free(ev); fj_free(rev);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* rpoll over kernel descriptors (works without a device), a timeout, and a wakeup through the eventfd. */
static void check_pollmany(void)
{
	int pfd[2], efd, n;
	long t;
	jintArray fds;
	jshortArray ev, rev;
	jint f[2];
	jshort e[2] = { POLLIN, POLLIN };

	if (pipe(pfd)) {
		CHECK(0, "pipe: %s", strerror(errno));
		return;
	}
	efd = OK(Java_org_sdp4j_rsocket_Native_eventfd(env, C));
	f[0] = pfd[0];
	f[1] = -1; /* ignored, as by poll(2) */
	fds = fj_ints(2, f);
	ev = fj_shorts(2, e);
	rev = fj_shorts(2, NULL);
	t = now_ms();
	n = OK(Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 2, efd, 50, JNI_TRUE));
	t = now_ms() - t;
	CHECK(n == 0 && t >= 45, "pollMany timeout: n=%d after %ld ms", n, t);
	CHECK(write(pfd[1], "x", 1) == 1, "pipe write");
	n = OK(Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 2, efd, 1000, JNI_TRUE));
	CHECK(n == 1 && (((jshort *)fj_data(rev))[0] & POLLIN) && ((jshort *)fj_data(rev))[1] == 0,
	      "pollMany pipe: n=%d revents=%x,%x", n, ((jshort *)fj_data(rev))[0], ((jshort *)fj_data(rev))[1]);
	CHECK(read(pfd[0], f, 1) == 1, "pipe read");
	OK((Java_org_sdp4j_rsocket_Native_signal(env, C, efd), 0));
	t = now_ms();
	n = OK(Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 1, efd, 5000, JNI_TRUE));
	t = now_ms() - t;
	CHECK(n == 0 && t < 1000, "pollMany wakeup: n=%d after %ld ms", n, t);
	n = OK(Java_org_sdp4j_rsocket_Native_pollMany(env, C, fds, ev, rev, 1, efd, 0, JNI_TRUE));
	CHECK(n == 0, "wakeup drained: n=%d", n);
	/* many descriptors: the heap path */
	{
		enum { N = 200 };
		jint many[N];
		jshort mev[N];
		jintArray mf;
		jshortArray me, mr;
		int i;

		for (i = 0; i < N; i++) {
			many[i] = i % 2 ? pfd[0] : -1;
			mev[i] = POLLIN;
		}
		mf = fj_ints(N, many);
		me = fj_shorts(N, mev);
		mr = fj_shorts(N, NULL);
		CHECK(write(pfd[1], "y", 1) == 1, "pipe write");
		n = OK(Java_org_sdp4j_rsocket_Native_pollMany(env, C, mf, me, mr, N, -1, 1000, JNI_TRUE));
		CHECK(n == N / 2, "pollMany %d fds: n=%d", N, n);
		fj_free(mf); fj_free(me); fj_free(mr);
	}
	OK((Java_org_sdp4j_rsocket_Native_closeEvent(env, C, efd), 0));
	close(pfd[0]);
	close(pfd[1]);
	fj_free(fds); fj_free(ev); fj_free(rev);
}

static void check_real(void)
{
	jstring r, name = fj_string("librdmacm.so.1");
	int devices = access("/sys/class/infiniband", F_OK) == 0;

	r = OK(Java_org_sdp4j_rsocket_Native_init(env, C, name));
	CHECK(r == NULL, "init librdmacm.so.1: %s", r ? jstr(r) : "");
	fj_free(r);
	r = OK(Java_org_sdp4j_rsocket_Native_init(env, C, name)); /* idempotent */
	CHECK(r == NULL, "init twice");
	fj_free(r);
	fj_free(name);
	r = OK(Java_org_sdp4j_rsocket_Native_probe(env, C));
	if (!devices) {
		CHECK(r && strstr(jstr(r), "no RDMA device: rdma_get_devices found none"), "probe: %s", r ? jstr(r) : "(null)");
		THROWS(SOCKX, "rsocket: No such device", Java_org_sdp4j_rsocket_Native_socket(env, C, JNI_FALSE));
		THROWS(SOCKX, "rsocket: No such device", Java_org_sdp4j_rsocket_Native_socket(env, C, JNI_TRUE));
	}
	printf("probe (real librdmacm): %s\n", r ? jstr(r) : "usable");
	fj_free(r);
	check_validation();
	check_pollmany();
}

static jint wait_for(jint fd, int events, int ms)
{
	return OK(Java_org_sdp4j_rsocket_Native_poll(env, C, fd, events, -1, ms));
}

static int port_of(jint fd, jboolean peer)
{
	jbyteArray n = OK(Java_org_sdp4j_rsocket_Native_sockname(env, C, fd, peer));
	int port = -1;

	if (n && fj_len(n) == 6)
		port = ((unsigned char *)fj_data(n))[4] << 8 | ((unsigned char *)fj_data(n))[5];
	CHECK(n && fj_len(n) == 6 && !memcmp(fj_data(n), "\177\0\0\1", 4), "sockname: 127.0.0.1 expected");
	fj_free(n);
	return port;
}

static jint connect_to(int port)
{
	jbyteArray a = loopback();
	jint fd = OK(Java_org_sdp4j_rsocket_Native_socket(env, C, JNI_FALSE));
	jboolean done = OK(Java_org_sdp4j_rsocket_Native_connect(env, C, fd, a, 0, port));

	if (!done) {
		jint rev = wait_for(fd, POLLOUT, 2000);
		OK((Java_org_sdp4j_rsocket_Native_finishConnect(env, C, fd, rev, a, 0, port), 0));
	}
	fj_free(a);
	return fd;
}

static void check_shim(const char *shim)
{
	jstring r, name = fj_string(shim);
	jbyteArray a = loopback(), buf = fj_bytes(64, NULL), msg = fj_bytes(5, "hello");
	jobject d = fj_direct(32);
	jint srv, cli, acc, n, port, rev, efd, fd;
	jboolean done;
	long t;
	int i;

	r = OK(Java_org_sdp4j_rsocket_Native_init(env, C, name));
	CHECK(r == NULL, "init shim: %s", r ? jstr(r) : "");
	fj_free(r);
	fj_free(name);
	r = OK(Java_org_sdp4j_rsocket_Native_probe(env, C));
	CHECK(r == NULL, "probe shim: %s", r ? jstr(r) : "");
	fj_free(r);

	srv = OK(Java_org_sdp4j_rsocket_Native_socket(env, C, JNI_FALSE));
	OK((Java_org_sdp4j_rsocket_Native_setOption(env, C, srv, 5 /* SO_REUSEADDR */, 1), 0));
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, srv, 5)) == 1, "SO_REUSEADDR");
	/* SOL_RDMA before listen (the shim keeps them as rsockets does): accepted sockets inherit them */
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, srv, 9)) == 384, "RDMA_SQSIZE default");
	OK((Java_org_sdp4j_rsocket_Native_setOption(env, C, srv, 9 /* RDMA_SQSIZE */, 100), 0));
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, srv, 9)) == 100, "RDMA_SQSIZE on a listener");
	OK((Java_org_sdp4j_rsocket_Native_bind(env, C, srv, a, 0, 0), 0));
	THROWS(SOCKX, "not connected", Java_org_sdp4j_rsocket_Native_accept(env, C, srv));
	OK((Java_org_sdp4j_rsocket_Native_listen(env, C, srv, 0), 0));
	port = port_of(srv, JNI_FALSE);
	CHECK(OK(Java_org_sdp4j_rsocket_Native_accept(env, C, srv)) == SDP4J_UNAVAILABLE, "accept: nothing pending");
	CHECK(OK(Java_org_sdp4j_rsocket_Native_pollListener(env, C, srv, -1, 20, JNI_TRUE)) == 0, "pollListener: nothing");

	cli = connect_to(port);
	CHECK(OK(Java_org_sdp4j_rsocket_Native_pollListener(env, C, srv, -1, 2000, JNI_TRUE)) & POLLIN,
	      "pollListener: a request");
	{ /* a listener in a Poller set (the channel dup path) */
		jint lf[1] = { srv };
		jshort le[1] = { POLLIN };
		jintArray lfa = fj_ints(1, lf);
		jshortArray lea = fj_shorts(1, le), lra = fj_shorts(1, NULL);

		n = OK(Java_org_sdp4j_rsocket_Native_pollMany(env, C, lfa, lea, lra, 1, -1, 2000, JNI_TRUE));
		CHECK(n == 1 && (((jshort *)fj_data(lra))[0] & POLLIN), "pollMany listener: n=%d", n);
		fj_free(lfa); fj_free(lea); fj_free(lra);
	}
	CHECK(wait_for(srv, POLLIN, 2000) & POLLIN, "listener readable");
	acc = OK(Java_org_sdp4j_rsocket_Native_accept(env, C, srv));
	CHECK(acc >= 0, "accept: %d", acc);
	CHECK(port_of(acc, JNI_FALSE) == port, "accepted local port");
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, acc, 9)) == 100, "accepted inherits RDMA_SQSIZE");
	CHECK(port_of(cli, JNI_TRUE) == port, "client peer port");

	CHECK(OK(Java_org_sdp4j_rsocket_Native_read(env, C, acc, buf, 0, 64)) == SDP4J_UNAVAILABLE, "read: nothing yet");
	CHECK(OK(Java_org_sdp4j_rsocket_Native_available(env, C, acc)) == 0, "available 0");
	CHECK(OK(Java_org_sdp4j_rsocket_Native_write(env, C, cli, msg, 0, 5)) == 5, "write 5");
	CHECK(OK(Java_org_sdp4j_rsocket_Native_write(env, C, cli, msg, 0, 0)) == 0, "write 0");
	CHECK(wait_for(acc, POLLIN, 2000) & POLLIN, "readable");
	CHECK(OK(Java_org_sdp4j_rsocket_Native_available(env, C, acc)) == 5, "available 5");
	n = OK(Java_org_sdp4j_rsocket_Native_read(env, C, acc, buf, 10, 54));
	CHECK(n == 5 && !memcmp((char *)fj_data(buf) + 10, "hello", 5), "read hello: %d", n);
	CHECK(OK(Java_org_sdp4j_rsocket_Native_read(env, C, acc, buf, 0, 0)) == 0, "read 0");
	/* direct buffers, at an offset */
	memcpy((char *)fj_data(d) + 3, "direct", 6);
	CHECK(OK(Java_org_sdp4j_rsocket_Native_writeDirect(env, C, acc, d, 3, 6)) == 6, "writeDirect");
	memset(fj_data(d), 0, 32);
	CHECK(wait_for(cli, POLLIN, 2000) & POLLIN, "readable");
	n = OK(Java_org_sdp4j_rsocket_Native_readDirect(env, C, cli, d, 20, 12));
	CHECK(n == 6 && !memcmp((char *)fj_data(d) + 20, "direct", 6), "readDirect: %d", n);

	/* options */
	OK((Java_org_sdp4j_rsocket_Native_setOption(env, C, cli, 1 /* TCP_NODELAY */, 1), 0));
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, cli, 1)) == 1, "TCP_NODELAY");
	OK((Java_org_sdp4j_rsocket_Native_setOption(env, C, cli, 6 /* SO_LINGER */, 5), 0));
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, cli, 6)) == 5, "SO_LINGER 5");
	OK((Java_org_sdp4j_rsocket_Native_setOption(env, C, cli, 6, -1), 0));
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, cli, 6)) == -1, "SO_LINGER off");
	OK((Java_org_sdp4j_rsocket_Native_setOption(env, C, cli, 3 /* SO_RCVBUF */, 65536), 0));
	CHECK(OK(Java_org_sdp4j_rsocket_Native_getOption(env, C, cli, 3)) >= 65536, "SO_RCVBUF");
	THROWS(SOCKX, "rsetsockopt RDMA_SQSIZE fd", Java_org_sdp4j_rsocket_Native_setOption(env, C, cli, 9, 64));

	/* async wakeup of a wait */
	efd = OK(Java_org_sdp4j_rsocket_Native_eventfd(env, C));
	OK((Java_org_sdp4j_rsocket_Native_signal(env, C, efd), 0));
	t = now_ms();
	rev = OK(Java_org_sdp4j_rsocket_Native_poll(env, C, acc, POLLIN, efd, 5000));
	t = now_ms() - t;
	CHECK((rev & SDP4J_WOKEN) && t < 1000, "poll woken: %x after %ld ms", rev, t);
	t = now_ms();
	rev = OK(Java_org_sdp4j_rsocket_Native_poll(env, C, acc, POLLIN, -1, 60));
	t = now_ms() - t;
	CHECK(rev == 0 && t >= 55, "poll timeout: %x after %ld ms", rev, t);
	OK((Java_org_sdp4j_rsocket_Native_closeEvent(env, C, efd), 0));

	/* half close: EOF on the other side */
	OK((Java_org_sdp4j_rsocket_Native_shutdown(env, C, cli, SHUT_WR), 0));
	CHECK(wait_for(acc, POLLIN, 2000) & POLLIN, "readable at EOF");
	CHECK(OK(Java_org_sdp4j_rsocket_Native_read(env, C, acc, buf, 0, 64)) == SDP4J_EOF, "EOF");

	/* writing to a closed peer fails with the peer named */
	OK((Java_org_sdp4j_rsocket_Native_close(env, C, acc), 0));
	THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_close(env, C, acc));
	THROWS(SOCKX, "Bad file descriptor", Java_org_sdp4j_rsocket_Native_read(env, C, acc, buf, 0, 1));
	for (i = 0; i < 50; i++) {
		fj_clear();
		Java_org_sdp4j_rsocket_Native_write(env, C, cli, buf, 0, 64);
		if (fj_pending)
			break;
		usleep(2000);
	}
	CHECK(fj_pending && !strcmp(fj_exc_class, SOCKX) && strstr(fj_exc_msg, "rsend 127.0.0.1:"),
	      "write to closed peer: %s %s", fj_exc_class, fj_exc_msg);
	fj_clear();
	OK((Java_org_sdp4j_rsocket_Native_close(env, C, cli), 0));

	/* the port in use */
	fd = OK(Java_org_sdp4j_rsocket_Native_socket(env, C, JNI_FALSE));
	THROWS("java/net/BindException", "rbind 127.0.0.1:", Java_org_sdp4j_rsocket_Native_bind(env, C, fd, a, 0, port));
	OK((Java_org_sdp4j_rsocket_Native_close(env, C, fd), 0));

	/* refused: immediately or through rpoll + finishConnect */
	OK((Java_org_sdp4j_rsocket_Native_close(env, C, srv), 0));
	fd = OK(Java_org_sdp4j_rsocket_Native_socket(env, C, JNI_FALSE));
	fj_clear();
	done = Java_org_sdp4j_rsocket_Native_connect(env, C, fd, a, 0, port);
	if (!fj_pending && !done) {
		rev = wait_for(fd, POLLOUT, 2000);
		Java_org_sdp4j_rsocket_Native_finishConnect(env, C, fd, rev, a, 0, port);
	}
	{
		char want[64];

		snprintf(want, sizeof want, "rconnect 127.0.0.1:%d: Connection refused", port);
		CHECK(fj_pending && !strcmp(fj_exc_class, "java/net/ConnectException") && !strcmp(fj_exc_msg, want),
		      "refused: %s \"%s\"", fj_exc_class, fj_exc_msg);
	}
	fj_clear();
	OK((Java_org_sdp4j_rsocket_Native_close(env, C, fd), 0));

	fj_free(a); fj_free(buf); fj_free(msg); fj_free(d);
}

/* The SMC entries (sdp4j_smc.c): argument validation on any kernel; the probe names why where there is no SMC. */
static void check_smc(void)
{
	int p[2], t, b;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	jint how;

	THROWS(SDP4J_IAE, "bad method 0", Java_org_sdp4j_smc_SmcNative_convert(env, C, 0, 0));
	THROWS(SDP4J_IAE, "fd -1 is not a socket", Java_org_sdp4j_smc_SmcNative_convert(env, C, -1, 1));
	THROWS(SDP4J_IAE, "fd -5 is not a socket", Java_org_sdp4j_smc_SmcNative_diag(env, C, -5));
	CHECK(!Java_org_sdp4j_smc_SmcNative_isSmc(env, C, -1), "isSmc(-1)");
	CHECK(pipe(p) == 0, "pipe");
	THROWS(SDP4J_IAE, "is not a socket", Java_org_sdp4j_smc_SmcNative_convert(env, C, p[0], 1));
	close(p[0]);
	close(p[1]);
	t = socket(AF_INET, SOCK_DGRAM, 0);
	THROWS(SDP4J_IAE, "is not a TCP socket", Java_org_sdp4j_smc_SmcNative_convert(env, C, t, 2));
	close(t);
	b = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(bind(b, (struct sockaddr *)&sa, sizeof sa) == 0, "bind");
	THROWS(SDP4J_IAE, "is already bound", Java_org_sdp4j_smc_SmcNative_convert(env, C, b, 1));
	CHECK(!Java_org_sdp4j_smc_SmcNative_isSmc(env, C, b), "a TCP socket is not SMC");
	close(b);
	fj_clear();
	(void)Java_org_sdp4j_smc_SmcNative_ueids(env, C); /* a string, or an exception naming why */
	CHECK(!fj_pending || (!strcmp(fj_exc_class, SOCKX) && strstr(fj_exc_msg, "SMC_GEN_NETLINK")),
	      "ueids: %s %s", fj_exc_class, fj_exc_msg);
	fj_clear();
	{ /* the RDMA device list: a string (one line per device), or an exception naming NETLINK_RDMA */
		jstring links = Java_org_sdp4j_rsocket_Native_rdmaLinks(env, C);

		CHECK(fj_pending ? !strcmp(fj_exc_class, SOCKX) && strstr(fj_exc_msg, "NETLINK_RDMA") != NULL
				 : links != NULL, "rdmaLinks: %s %s", fj_exc_class, fj_exc_msg);
		fj_clear();
	}
	how = Java_org_sdp4j_smc_SmcNative_probe(env, C);
	if (fj_pending) {
		CHECK(!strcmp(fj_exc_class, SOCKX) && strstr(fj_exc_msg, "the kernel has no SMC: socket(AF_INET"),
		      "probe: %s %s", fj_exc_class, fj_exc_msg);
		fj_clear();
	} else {
		CHECK(how == 1 || how == 2, "probe returned %d", (int)how);
		t = socket(AF_INET, SOCK_STREAM, 0);
		fj_clear();
		Java_org_sdp4j_smc_SmcNative_convert(env, C, t, how);
		CHECK(!fj_pending, "convert: %s %s", fj_exc_class, fj_exc_msg);
		fj_clear();
		CHECK(Java_org_sdp4j_smc_SmcNative_isSmc(env, C, t), "converted socket is SMC");
		close(t);
	}
}

/* The libucp entries (sdp4j_ucp.c): before libucp is loaded each throws saying so; a library that is not there is
 * named; then, with UCX's libucp.so.0 (when installed), every handle and length is validated before UCX sees it. */
static void check_ucp(void)
{
	jstring why, name;

	THROWS("java/lang/IllegalStateException", "libucp not loaded yet",
	       Java_org_sdp4j_ucp_UcpNative_progress(env, C, 1));
	THROWS(SDP4J_NPE, "library name is null", Java_org_sdp4j_ucp_UcpNative_init(env, C, NULL));
	name = fj_string("libsdp4j-no-such-ucp.so");
	why = OK(Java_org_sdp4j_ucp_UcpNative_init(env, C, name));
	CHECK(why && strstr(jstr(why), "dlopen libsdp4j-no-such-ucp.so"), "init of a missing libucp: %s",
	      why ? jstr(why) : "null");
	fj_free(name);
	if (why)
		fj_free(why);
	name = fj_string("libucp.so.0");
	why = OK(Java_org_sdp4j_ucp_UcpNative_init(env, C, name));
	fj_free(name);
	if (why) { /* UCX not installed here: nothing more to drive */
		printf("libucp.so.0 not loadable, its argument checks skipped: %s\n", jstr(why));
		fj_free(why);
		return;
	}
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_progress(env, C, 0));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_signal(env, C, -8));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_send(env, C, 0, 4096, 8));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_send(env, C, 4096, 4096, -1));
	THROWS(SDP4J_IAE, "null buffer of 8 bytes", Java_org_sdp4j_ucp_UcpNative_send(env, C, 4096, 0, 8));
	THROWS(SDP4J_IAE, "empty buffer", Java_org_sdp4j_ucp_UcpNative_recv(env, C, 4096, 0, 8));
	THROWS(SDP4J_IAE, "empty buffer", Java_org_sdp4j_ucp_UcpNative_recv(env, C, 4096, 4096, 0));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_status(env, C, 0));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_received(env, C, -1));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_free(env, C, 0));
	THROWS(SDP4J_IAE, "bad request handle 0", Java_org_sdp4j_ucp_UcpNative_cancel(env, C, 4096, 0));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_await(env, C, 4096, -1));
	THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_arm(env, C, 0));
	THROWS(SDP4J_IAE, "bad descriptor", Java_org_sdp4j_ucp_UcpNative_epollArm(env, C, -1, 0));
	THROWS(SDP4J_IAE, "bad descriptor", Java_org_sdp4j_ucp_UcpNative_epollArm(env, C, 0, -1));
	THROWS(SDP4J_NPE, "fds is null", Java_org_sdp4j_ucp_UcpNative_epollWait(env, C, 0, NULL, 0));
	THROWS(SDP4J_IAE, "bad port 0", Java_org_sdp4j_ucp_UcpNative_tcpListeners(env, C, 0));
	THROWS(SDP4J_IAE, "bad port 65536", Java_org_sdp4j_ucp_UcpNative_tcpListeners(env, C, 65536));
	{ /* the kernel's listeners of one port: this one, owned by this uid, its inode; none once it is closed */
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t al = sizeof a;
		struct stat st;
		jbyteArray r;
		const unsigned char *b;
		int l = socket(AF_INET, SOCK_STREAM, 0), port, i;
		unsigned long long inode = 0;
		unsigned uid = 0;

		CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0, "listener");
		CHECK(getsockname(l, (struct sockaddr *)&a, &al) == 0 && fstat(l, &st) == 0, "its port and inode");
		port = ntohs(a.sin_port);
		r = OK(Java_org_sdp4j_ucp_UcpNative_tcpListeners(env, C, port));
		CHECK(r != NULL, "socket diagnostics answered");
		if (r) {
			b = fj_data(r);
			CHECK(fj_len(r) == 29, "one listener on port %d: %d bytes", port, (int)fj_len(r));
			for (i = 0; i < 4; i++)
				uid = uid << 8 | b[17 + i];
			for (i = 0; i < 8; i++)
				inode = inode << 8 | b[21 + i];
			CHECK(b[0] == 4 && b[1] == 127 && b[4] == 1, "IPv4, 127.0.0.1: %d %d.%d.%d.%d", b[0], b[1], b[2], b[3],
			      b[4]);
			CHECK(uid == (unsigned)geteuid() && inode == (unsigned long long)st.st_ino, "uid %u inode %llu", uid,
			      inode);
			fj_free(r);
		}
		close(l);
		r = OK(Java_org_sdp4j_ucp_UcpNative_tcpListeners(env, C, port));
		CHECK(r != NULL && fj_len(r) == 0, "none once closed");
		if (r)
			fj_free(r);
	}
	THROWS(SDP4J_IAE, "bad descriptor -1", Java_org_sdp4j_ucp_UcpNative_peerUid(env, C, -1));
	{ /* the peer's uid of a connected Unix socket is this process's; a pipe has none */
		int sp[2], pp[2];

		CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0, "socketpair");
		CHECK(pipe(pp) == 0, "pipe");
		CHECK(OK(Java_org_sdp4j_ucp_UcpNative_peerUid(env, C, sp[0])) == (jint)geteuid(), "peer uid");
		THROWS(SOCKX, "SO_PEERCRED", Java_org_sdp4j_ucp_UcpNative_peerUid(env, C, pp[0]));
		close(sp[0]);
		close(sp[1]);
		close(pp[0]);
		close(pp[1]);
	}
	{ /* the parker's set: a descriptor armed once is reported once (EPOLLONESHOT) until armed again, armed twice
	   * is no error, a closed and reused number is added anew, bad arguments are refused */
		int pp[2], ep, i;
		jint *out;
		jintArray fds, none;
		jint n;

		CHECK(pipe(pp) == 0, "pipe");
		ep = OK(Java_org_sdp4j_ucp_UcpNative_epollCreate(env, C));
		CHECK(ep >= 0, "epoll_create1 %d", ep);
		fds = fj_ints(4, NULL);
		none = fj_ints(0, NULL);
		THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_epollWait(env, C, ep, none, 0));
		THROWS(SDP4J_IAE, "bad argument", Java_org_sdp4j_ucp_UcpNative_epollWait(env, C, ep, fds, -1));
		THROWS(SOCKX, "epoll_ctl", Java_org_sdp4j_ucp_UcpNative_epollArm(env, C, pp[0], pp[0]));
		OK((Java_org_sdp4j_ucp_UcpNative_epollArm(env, C, ep, pp[0]), 0));
		OK((Java_org_sdp4j_ucp_UcpNative_epollArm(env, C, ep, pp[0]), 0)); /* a second waiter */
		n = OK(Java_org_sdp4j_ucp_UcpNative_epollWait(env, C, ep, fds, 1));
		CHECK(n == 0, "nothing ready: %d", (int)n);
		CHECK(write(pp[1], "x", 1) == 1, "write");
		n = OK(Java_org_sdp4j_ucp_UcpNative_epollWait(env, C, ep, fds, 5000));
		out = fj_data(fds);
		CHECK(n == 1 && out[0] == pp[0], "the readable pipe: n %d, fd %d", (int)n, (int)out[0]);
		n = OK(Java_org_sdp4j_ucp_UcpNative_epollWait(env, C, ep, fds, 1));
		CHECK(n == 0, "reported once until armed again: %d", (int)n);
		OK((Java_org_sdp4j_ucp_UcpNative_epollArm(env, C, ep, pp[0]), 0));
		n = OK(Java_org_sdp4j_ucp_UcpNative_epollWait(env, C, ep, fds, 5000));
		CHECK(n == 1 && out[0] == pp[0], "armed again, still readable: n %d", (int)n);
		for (i = 0; i < 2; i++) { /* the number closed and made again: epoll forgot it, arming adds it */
			close(pp[0]);
			close(pp[1]);
			CHECK(pipe(pp) == 0, "pipe");
			OK((Java_org_sdp4j_ucp_UcpNative_epollArm(env, C, ep, pp[0]), 0));
		}
		fj_free(fds);
		fj_free(none);
		close(pp[0]);
		close(pp[1]);
		close(ep);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s missing|real|shim [SHIM.so]\n", argv[0]);
		return 2;
	}
	env = fj_env();
	if (!strcmp(argv[1], "missing"))
		check_missing();
	else if (!strcmp(argv[1], "real")) {
		check_real();
		check_smc();
		check_ucp();
	}
	else if (!strcmp(argv[1], "shim") && argc > 2)
		check_shim(argv[2]);
	else
		return 2;
	CHECK(fj_outstanding == 0, "JNI elements/critical regions not released: %d", fj_outstanding);
	printf("check_native %s: %d passed, %d failed\n", argv[1], passed, failed);
	return failed ? 1 : 0;
}
