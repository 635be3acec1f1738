/* The ucx transport's data path over libucp, without jucx's per-request Java objects and completion upcalls.
 *
 * jucx sets a connection up (context, worker, endpoint, wire-up); the hot path - stream send and receive, request
 * tests, progress, waits - is these calls on the native handles jucx made (UcpWorker/UcpEndpoint.getNativeId()).
 * A request is returned to Java as its address and tested there until it completes; Java then frees it. No
 * callback is given, so UCX never calls back into the JVM, and nothing is allocated per operation on either side.
 *
 * libucp is dlopen'ed (jucx's libjucx.so has loaded it already; RTLD_NOLOAD is not required so that a test can
 * use this without jucx), never linked: libsdp4j.so loads where UCX is not installed and says why.
 *
 * Handles come from Java: 0 and negative values are refused with an exception here; a stale handle is the
 * caller's life-cycle bug (UcxConnection counts users in, so no worker is destroyed under a call). */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "sdp4j.h"

#define SDP4J_UCP_FUNCS(X) \
	X(ucp_stream_send_nbx) X(ucp_stream_recv_nbx) X(ucp_request_check_status) \
	X(ucp_stream_recv_request_test) X(ucp_request_free) X(ucp_request_cancel) X(ucp_worker_progress) \
	X(ucp_worker_signal) X(ucp_worker_get_efd) X(ucp_worker_arm)

static struct {
	int loaded;
#define SDP4J_FP(f) __typeof__(f) *f;
	SDP4J_UCP_FUNCS(SDP4J_FP)
#undef SDP4J_FP
} U;

static pthread_mutex_t ucp_lock = PTHREAD_MUTEX_INITIALIZER;
static char ucp_err[512] = "libucp not loaded yet (UcpNative.init was not called)";

/* dlopen(name) with UCX's fatal-signal handlers kept out of the JVM.
 *
 * libucs's constructor installs handlers for SIGSEGV, SIGBUS, SIGFPE and SIGILL (UCX_ERROR_SIGNALS) that print a
 * backtrace and abort. The JVM takes those signals by design (safepoint polls, implicit null and division checks),
 * so jucx removes UCX's handlers in its JNI_OnLoad - but the dynamic loader runs libucs's constructor before that,
 * and a thread reaching a safepoint in between is killed ("Caught signal 11 (Segmentation fault: invalid
 * permissions for mapped object)": a two-host CI run, and 20 of 20 JVMs that load jucx while another thread
 * forces safepoints). So the first load of libucs in the process happens here, with UCX_ERROR_SIGNALS empty; the
 * variable is put back as it was, since UCX reads it only in that constructor and child processes inherit it.
 * The window of a concurrent getenv() against this setenv() is far smaller than the one closed. */
static void *ucs_quiet_dlopen(const char *name)
{
	const char *was;
	char *saved = NULL;
	void *h;

	h = dlopen("libucs.so.0", RTLD_NOW | RTLD_NOLOAD);
	if (h) { /* loaded already (by jucx or the application): its constructor ran then */
		dlclose(h);
		return dlopen(name, RTLD_NOW | RTLD_LOCAL);
	}
	was = getenv("UCX_ERROR_SIGNALS");
	if (was && !(saved = strdup(was)))
		return NULL;
	setenv("UCX_ERROR_SIGNALS", "", 1);
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (saved)
		setenv("UCX_ERROR_SIGNALS", saved, 1);
	else
		unsetenv("UCX_ERROR_SIGNALS");
	free(saved);
	return h;
}

/* init(name): null once loaded, else why not. */
JNIEXPORT jstring JNICALL Java_org_sdp4j_ucp_UcpNative_init(JNIEnv *env, jclass cls, jstring jname)
{
	const char *name;
	void *h, *sym;
	jstring ret = NULL;
	__typeof__(U) t;

	(void)cls;
	if (!jname) {
		sdp4j_throw(env, SDP4J_NPE, "UcpNative.init: library name is null");
		return NULL;
	}
	name = (*env)->GetStringUTFChars(env, jname, NULL);
	if (!name)
		return NULL;
	pthread_mutex_lock(&ucp_lock);
	if (U.loaded)
		goto out;
	memset(&t, 0, sizeof t);
	dlerror();
	h = ucs_quiet_dlopen(name);
	if (!h) {
		const char *e = dlerror();
		snprintf(ucp_err, sizeof ucp_err, "dlopen %s: %s", name, e ? e : "unknown error");
		goto out;
	}
#define SDP4J_SYM(f) \
	dlerror(); \
	sym = dlsym(h, #f); \
	if (!sym) { \
		const char *e = dlerror(); \
		snprintf(ucp_err, sizeof ucp_err, "dlsym %s in %s: %s", #f, name, e ? e : "not found"); \
		dlclose(h); \
		goto out; \
	} \
	memcpy(&t.f, &sym, sizeof sym);
	SDP4J_UCP_FUNCS(SDP4J_SYM)
#undef SDP4J_SYM
	t.loaded = 1; /* never dlclose'd: UCX keeps global state and threads */
	U = t;
out:
	if (!U.loaded)
		ret = (*env)->NewStringUTF(env, ucp_err);
	pthread_mutex_unlock(&ucp_lock);
	(*env)->ReleaseStringUTFChars(env, jname, name);
	return ret;
}

/* Every entry: libucp loaded, each handle positive (a user-space address), a length not negative. */
static int need(JNIEnv *env, const char *call, jlong a, jlong b, jlong len)
{
	if (!U.loaded) {
		sdp4j_throw(env, "java/lang/IllegalStateException", "%s: %s", call, ucp_err);
		return -1;
	}
	if (a <= 0 || b < 0 || len < 0) {
		sdp4j_throw(env, SDP4J_IAE, "%s: bad argument (handle %lld, %lld, length %lld)", call, (long long)a,
			    (long long)b, (long long)len);
		return -1;
	}
	return 0;
}

/* A request's address, or what an operation that needed none said: DONE | length, or a UCX status (< 0). */
static jlong outcome(ucs_status_ptr_t p, size_t length)
{
	if (p == NULL)
		return org_sdp4j_ucp_UcpNative_DONE | (jlong)length;
	if (UCS_PTR_IS_ERR(p))
		return (jlong)UCS_PTR_STATUS(p);
	return (jlong)(uintptr_t)p;
}

JNIEXPORT jlong JNICALL Java_org_sdp4j_ucp_UcpNative_send(JNIEnv *env, jclass cls, jlong ep, jlong addr, jlong len)
{
	ucp_request_param_t param = { 0 };

	(void)cls;
	if (need(env, "UcpNative.send", ep, addr, len) || (!addr && len)) {
		if (!(*env)->ExceptionCheck(env))
			sdp4j_throw(env, SDP4J_IAE, "UcpNative.send: null buffer of %lld bytes", (long long)len);
		return 0;
	}
	param.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE;
	param.memory_type = UCS_MEMORY_TYPE_HOST; /* Java's direct buffers: no detection per call */
	return outcome(U.ucp_stream_send_nbx((ucp_ep_h)(uintptr_t)ep, (void *)(uintptr_t)addr, (size_t)len, &param),
		       (size_t)len);
}

JNIEXPORT jlong JNICALL Java_org_sdp4j_ucp_UcpNative_recv(JNIEnv *env, jclass cls, jlong ep, jlong addr, jlong len)
{
	ucp_request_param_t param = { 0 };
	ucs_status_ptr_t p;
	size_t length = 0;

	(void)cls;
	if (need(env, "UcpNative.recv", ep, addr, len) || !addr || !len) {
		if (!(*env)->ExceptionCheck(env))
			sdp4j_throw(env, SDP4J_IAE, "UcpNative.recv: empty buffer");
		return 0;
	}
	param.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE;
	param.memory_type = UCS_MEMORY_TYPE_HOST;
	/* the call first, then its length: as one expression's arguments their order would be unspecified */
	p = U.ucp_stream_recv_nbx((ucp_ep_h)(uintptr_t)ep, (void *)(uintptr_t)addr, (size_t)len, &length, &param);
	return outcome(p, length);
}

/* A posted request: UCS_INPROGRESS (1) while it runs, then its status (UCS_OK 0, or < 0). */
JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_status(JNIEnv *env, jclass cls, jlong req)
{
	(void)cls;
	if (need(env, "UcpNative.status", req, 0, 0))
		return 0;
	return U.ucp_request_check_status((void *)(uintptr_t)req);
}

/* A completed receive request: the bytes it received. */
JNIEXPORT jlong JNICALL Java_org_sdp4j_ucp_UcpNative_received(JNIEnv *env, jclass cls, jlong req)
{
	size_t length = 0;
	ucs_status_t s;

	(void)cls;
	if (need(env, "UcpNative.received", req, 0, 0))
		return 0;
	s = U.ucp_stream_recv_request_test((void *)(uintptr_t)req, &length);
	return s == UCS_OK ? (jlong)length : (jlong)s;
}

/* Gives a request back to UCX; one still running is released when it completes. */
JNIEXPORT void JNICALL Java_org_sdp4j_ucp_UcpNative_free(JNIEnv *env, jclass cls, jlong req)
{
	(void)cls;
	if (need(env, "UcpNative.free", req, 0, 0))
		return;
	U.ucp_request_free((void *)(uintptr_t)req);
}

JNIEXPORT void JNICALL Java_org_sdp4j_ucp_UcpNative_cancel(JNIEnv *env, jclass cls, jlong worker, jlong req)
{
	(void)cls;
	if (need(env, "UcpNative.cancel", worker, req, 0))
		return;
	if (req <= 0) {
		sdp4j_throw(env, SDP4J_IAE, "UcpNative.cancel: bad request handle %lld", (long long)req);
		return;
	}
	U.ucp_request_cancel((ucp_worker_h)(uintptr_t)worker, (void *)(uintptr_t)req);
}

JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_progress(JNIEnv *env, jclass cls, jlong worker)
{
	(void)cls;
	if (need(env, "UcpNative.progress", worker, 0, 0))
		return 0;
	return (jint)U.ucp_worker_progress((ucp_worker_h)(uintptr_t)worker);
}

JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_signal(JNIEnv *env, jclass cls, jlong worker)
{
	(void)cls;
	if (need(env, "UcpNative.signal", worker, 0, 0))
		return 0;
	return U.ucp_worker_signal((ucp_worker_h)(uintptr_t)worker);
}

/* Sleeps until the worker has events, is signalled, or timeoutMicros passed: ucp_worker_arm, then ppoll(2) on the
 * worker's event descriptor. 1 when woken or events are due (UCS_ERR_BUSY from arm: progress first), 0 at the
 * timeout, or a UCX status (< 0). A bounded sleep is why this exists: jucx's waitForEvents (ucp_worker_wait) has
 * no timeout, and UCX 1.13 can lose a wake-up; microseconds, because a lost one should cost little. Platform
 * threads only: a virtual thread must not block here. */
JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_await(JNIEnv *env, jclass cls, jlong worker, jint timeoutMicros)
{
	ucp_worker_h w = (ucp_worker_h)(uintptr_t)worker;
	struct timespec ts;
	struct pollfd p;
	ucs_status_t s;
	int fd = -1, n;

	(void)cls;
	if (need(env, "UcpNative.await", worker, timeoutMicros, 0))
		return 0;
	s = U.ucp_worker_get_efd(w, &fd);
	if (s != UCS_OK)
		return s;
	s = U.ucp_worker_arm(w);
	if (s == UCS_ERR_BUSY)
		return 2; /* events due, or a send pending: the caller decides how long to go round */
	if (s != UCS_OK)
		return s;
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	ts.tv_sec = timeoutMicros / 1000000;
	ts.tv_nsec = (long)(timeoutMicros % 1000000) * 1000;
	do {
		n = ppoll(&p, 1, &ts, NULL); /* EINTR: again, from the full bound (rare; still bounded) */
	} while (n < 0 && errno == EINTR);
	return n > 0 ? 1 : n == 0 ? 0 : UCS_ERR_IO_ERROR;
}

/* For a waiter that parks instead of sleeping here (a virtual thread): arms the worker and returns its event
 * descriptor for a poller to watch, or -1 when events are due already (UCS_ERR_BUSY: progress instead), or a UCX
 * status (< -1). */
JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_arm(JNIEnv *env, jclass cls, jlong worker)
{
	ucp_worker_h w = (ucp_worker_h)(uintptr_t)worker;
	ucs_status_t s;
	int fd = -1;

	(void)cls;
	if (need(env, "UcpNative.arm", worker, 0, 0))
		return 0;
	s = U.ucp_worker_get_efd(w, &fd);
	if (s != UCS_OK)
		return s < -1 ? s : UCS_ERR_IO_ERROR;
	s = U.ucp_worker_arm(w);
	if (s == UCS_ERR_BUSY)
		return -1;
	return s == UCS_OK ? fd : s < -1 ? s : UCS_ERR_IO_ERROR;
}

/* The parker's poll set: an epoll instance the parking threads add their workers' event descriptors to. */
JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_epollCreate(JNIEnv *env, jclass cls)
{
	int fd = epoll_create1(EPOLL_CLOEXEC);

	(void)cls;
	if (fd < 0)
		sdp4j_throw_errno(env, errno, "epoll_create1", NULL, -1);
	return fd;
}

/* Watches fd (a worker's event descriptor, armed) in epfd for one readiness (EPOLLONESHOT), reported as fd by the
 * poller's epollWait; the parking thread calls this itself, so the poller is not woken to add it. Modified when
 * fd is in the set already (a wait before), added when not (a first wait, or a descriptor number that a destroyed
 * worker's closed descriptor had: epoll dropped that one with its close). */
JNIEXPORT void JNICALL Java_org_sdp4j_ucp_UcpNative_epollArm(JNIEnv *env, jclass cls, jint epfd, jint fd)
{
	struct epoll_event ev;

	(void)cls;
	if (epfd < 0 || fd < 0) {
		sdp4j_throw(env, SDP4J_IAE, "UcpNative.epollArm: bad descriptor (epfd %d, fd %d)", (int)epfd, (int)fd);
		return;
	}
	memset(&ev, 0, sizeof ev);
	ev.events = EPOLLIN | EPOLLONESHOT;
	ev.data.fd = fd;
	if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
		return;
	if (errno == ENOENT && epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
		return;
	if (errno == EEXIST && epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
		return; /* another waiter on the same worker added it meanwhile */
	sdp4j_throw_errno(env, errno, "epoll_ctl", NULL, fd);
}

/* Waits at most timeoutMillis for armed descriptors of epfd; writes the ready ones to fds[0..) (at most its
 * length, at most 64) and returns how many. */
JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_epollWait(JNIEnv *env, jclass cls, jint epfd, jintArray jfds,
							     jint timeoutMillis)
{
	struct epoll_event ev[64];
	jint out[64];
	int n, i, max;

	(void)cls;
	if (!jfds) {
		sdp4j_throw(env, SDP4J_NPE, "UcpNative.epollWait: fds is null");
		return 0;
	}
	max = (*env)->GetArrayLength(env, jfds);
	if (epfd < 0 || timeoutMillis < 0 || max < 1) {
		sdp4j_throw(env, SDP4J_IAE, "UcpNative.epollWait: bad argument (epfd %d, %d slots, timeout %d)",
			    (int)epfd, max, (int)timeoutMillis);
		return 0;
	}
	if (max > 64)
		max = 64;
	do {
		n = epoll_wait(epfd, ev, max, timeoutMillis); /* EINTR: again, from the full bound (rare; still bounded) */
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		sdp4j_throw_errno(env, errno, "epoll_wait", NULL, epfd);
		return 0;
	}
	for (i = 0; i < n; i++)
		out[i] = ev[i].data.fd;
	if (n > 0)
		(*env)->SetIntArrayRegion(env, jfds, 0, n, out);
	return n;
}

/* The uid of the process at the other end of a connected Unix socket (SO_PEERCRED), for the rendezvous's account
 * check on every connect: the JDK's own SO_PEERCRED option also looks both ids up in the account and group
 * databases (getpwuid, getgrgid), about 40 us a side of a 1 ms local connect. Needs no libucp. */
JNIEXPORT jint JNICALL Java_org_sdp4j_ucp_UcpNative_peerUid(JNIEnv *env, jclass cls, jint fd)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	(void)cls;
	if (fd < 0) {
		sdp4j_throw(env, SDP4J_IAE, "UcpNative.peerUid: bad descriptor %d", (int)fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		sdp4j_throw_errno(env, errno, "getsockopt(SO_PEERCRED)", NULL, fd);
		return -1;
	}
	if (len != sizeof cred) {
		sdp4j_throw(env, SDP4J_IAE, "UcpNative.peerUid: descriptor %d gave %u bytes of credentials", (int)fd,
			    (unsigned)len);
		return -1;
	}
	return (jint)cred.uid;
}
