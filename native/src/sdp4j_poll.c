/* Waiting: rpoll over rsockets and kernel descriptors in one call, plus the wakeup eventfd each socket and each
 * poller owns. A close (or Poller.wakeup) from another thread writes the eventfd; a thread in rpoll returns.
 * A socket's eventfd is never drained: once closed, every later wait returns at once.
 *
 * Timeouts never reach rpoll: librdmacm's rpoll (rdma-core 44 at least) returns on an expired timeout after
 * rs_poll_enter() without the matching rs_poll_exit(), leaking its global poll count; from then on every rpoll of
 * the process that sees an event spins in sched_yield() for ever ("librdmacm infinite loop in rpoll when
 * timeout > 0", linux-rdma, Sep 2025). So a bounded wait is rpoll(-1) with a per-thread timerfd in the set;
 * rpoll(-1) and rpoll(0) keep the count balanced. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "sdp4j.h"

#define JFN(name) JNICALL Java_org_sdp4j_rsocket_Native_##name

/* ---- bounded rpoll ---- */

/* Each waiting thread's own descriptors, created on first use and closed when the thread exits: the timer of its
 * bounded waits, and the eventfd through which a data call kicks it out of rpoll (sdp4j_rslock.c). */
static pthread_key_t thread_key;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;
static __thread struct thread_fds {
	int timer, kick; /* + 1: 0 means not created yet */
} tfds;

static void thread_fds_close(void *p)
{
	struct thread_fds *t = p;

	if (t->timer)
		close(t->timer - 1);
	if (t->kick)
		close(t->kick - 1);
}

static void thread_key_init(void)
{
	pthread_key_create(&thread_key, thread_fds_close);
}

/* *slot's descriptor, made by create() on this thread's first call; -1 with errno when that fails. */
static int thread_fd(int *slot, int (*create)(void))
{
	int fd;

	if (*slot)
		return *slot - 1;
	pthread_once(&thread_once, thread_key_init);
	fd = create();
	if (fd < 0)
		return -1;
	*slot = fd + 1;
	pthread_setspecific(thread_key, &tfds);
	return fd;
}

static int new_timer(void)
{
	return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
}

static int new_kick(void)
{
	return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/* Reads a non-blocking counter descriptor (eventfd, timerfd) until it is empty. */
static void drain(int fd)
{
	uint64_t n;

	while (read(fd, &n, sizeof n) > 0)
		;
}

static void timer_set(int fd, int ms)
{
	struct itimerspec its = { { 0, 0 }, { ms / 1000, (long)(ms % 1000) * 1000000L } };

	timerfd_settime(fd, 0, &its, NULL); /* ms == 0 disarms */
	if (!ms)
		drain(fd); /* a stale expiry */
}

/* rpoll on p[0..n) for at most timeout ms (-1: no limit). p must have room for one more entry. Returns as rpoll
 * does, the timer not counted; 0 when the time is up. */
static int rpoll_timed(struct pollfd *p, nfds_t n, int timeout)
{
	int tfd, r, err;

	if (timeout <= 0)
		return R.rpoll(p, n, timeout < 0 ? -1 : 0);
	tfd = thread_fd(&tfds.timer, new_timer);
	if (tfd < 0)
		return -1;
	timer_set(tfd, timeout);
	p[n].fd = tfd;
	p[n].events = POLLIN;
	p[n].revents = 0;
	r = R.rpoll(p, n + 1, -1);
	err = errno;
	if (r > 0 && p[n].revents)
		r--;
	timer_set(tfd, 0);
	errno = err;
	return r;
}

/* rpoll on p[0..n) for at most timeout ms, as a waiter on its rsockets (sdp4j_rslock.c: a data call on one of them
 * waits until no rpoll holds it). p must have room for two more entries: this thread's kick eventfd, its timer.
 * A kick alone is not an event: the wait resumes once the data call is done, with what is left of the timeout. */
#define STACK_REG 8
static int rpoll_shared(struct pollfd *p, nfds_t n, int timeout)
{
	int stack_reg[STACK_REG], *reg = stack_reg, nreg, kick = -1, r = -1, err = 0, kicked, left = timeout;
	struct timespec t0 = { 0, 0 }, t1;
	nfds_t i;

	if (n > STACK_REG && !(reg = malloc(sizeof *reg * n))) {
		errno = ENOMEM;
		return -1;
	}
	if (timeout != 0 && (kick = thread_fd(&tfds.kick, new_kick)) < 0)
		goto out;
	if (timeout > 0)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		nreg = sdp4j_rs_wait_begin(p, (int)n, kick, reg);
		if (nreg < 0) {
			r = -1;
			break;
		}
		kicked = 0;
		if (nreg && kick >= 0) {
			p[n].fd = kick;
			p[n].events = POLLIN;
			p[n].revents = 0;
			r = rpoll_timed(p, n + 1, left);
			err = errno;
			if (r > 0 && p[n].revents) {
				kicked = 1;
				r--;
			}
		} else {
			r = rpoll_timed(p, n, left);
			err = errno;
		}
		sdp4j_rs_wait_end(reg, nreg, kick);
		if (kicked)
			drain(kick);
		errno = err;
		if (!kicked || r != 0)
			break;
		if (timeout > 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			left = timeout - (int)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
			if (left <= 0) {
				r = 0;
				break;
			}
		}
		for (i = 0; i < n; i++)
			p[i].revents = 0;
	}
out:
	if (reg != stack_reg)
		free(reg);
	return r;
}

JNIEXPORT jint JFN(eventfd)(JNIEnv *env, jclass cls)
{
	int fd;

	(void)cls;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0) {
		sdp4j_throw_errno(env, errno, "eventfd", NULL, -1);
		return -1;
	}
	if (fd >= SDP4J_FD_MAX) {
		close(fd);
		sdp4j_throw_errno(env, EMFILE, "eventfd", NULL, fd);
		return -1;
	}
	sdp4j_fd_set(fd, FD_EVENT);
	return fd;
}

JNIEXPORT void JFN(signal)(JNIEnv *env, jclass cls, jint efd)
{
	uint64_t one = 1;

	(void)cls;
	if (sdp4j_check_fd(env, "eventfd write", efd, FDM(FD_EVENT)))
		return;
	/* EAGAIN: the counter is saturated, which is signalled enough */
	if (write(efd, &one, sizeof one) < 0 && errno != EAGAIN)
		sdp4j_throw_errno(env, errno, "eventfd write", NULL, efd);
}

JNIEXPORT void JFN(closeEvent)(JNIEnv *env, jclass cls, jint efd)
{
	(void)cls;
	if (sdp4j_check_fd(env, "close eventfd", efd, FDM(FD_EVENT)))
		return;
	sdp4j_fd_set(efd, FD_NONE);
	if (close(efd))
		sdp4j_throw_errno(env, errno, "close eventfd", NULL, efd);
}

static int check_wakefd(JNIEnv *env, const char *call, jint wakefd)
{
	return wakefd == -1 ? 0 : sdp4j_check_fd(env, call, wakefd, FDM(FD_EVENT));
}

/* Waits for `events` on one rsocket or the wakeup fd: the rsocket's revents, | SDP4J_WOKEN when woken,
 * 0 on timeout or EINTR (the caller recomputes its deadline). timeout: ms, -1 forever.
 * Busy-polling (the busypoll tunable, RsocketOptions.BUSY_POLL) is the Java side's: it calls this with timeout 0
 * and wakefd -1 in a loop, i.e. rpoll(0) on the rsocket alone, which makes no system call (librdmacm polls its
 * completion queue in user space; a kernel descriptor in the set would cost a poll(2) per call). */
JNIEXPORT jint JFN(poll)(JNIEnv *env, jclass cls, jint fd, jint events, jint wakefd, jint timeout)
{
	struct pollfd p[4]; /* the rsocket, the wakeup fd, the kick, the timer */
	jint res;
	int n, r;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rpoll", fd, FDM_RSOCKET) ||
	    check_wakefd(env, "rpoll", wakefd))
		return -1;
	p[0].fd = fd;
	p[0].events = (short)events;
	p[0].revents = 0;
	p[1].fd = wakefd;
	p[1].events = POLLIN;
	p[1].revents = 0;
	n = wakefd >= 0 ? 2 : 1;
	r = rpoll_shared(p, (nfds_t)n, timeout);
	if (r < 0) {
		if (errno == EINTR)
			return 0;
		sdp4j_throw_errno(env, errno, "rpoll", NULL, fd);
		return -1;
	}
	res = (jint)(unsigned short)p[0].revents;
	if (n == 2 && p[1].revents)
		res |= SDP4J_WOKEN;
	return res;
}

/* Whether the rdma_cm channel of connected rsocket fd holds an event nobody has read (CmStallWatch): poll(2) on the
 * channel itself, whose descriptor is the rsocket's number in every librdmacm so far (as for a listener, below).
 * Always false over a stand-in library, whose descriptors are sockets (POLLIN there means data). */
JNIEXPORT jboolean JFN(cmEventPending)(JNIEnv *env, jclass cls, jint fd)
{
	struct pollfd p;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "poll rdma_cm channel", fd, FDM_RSOCKET))
		return JNI_FALSE;
	if (!sdp4j_real_rdmacm())
		return JNI_FALSE;
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	if (poll(&p, 1, 0) < 0) {
		if (errno != EINTR)
			sdp4j_throw_errno(env, errno, "poll rdma_cm channel", NULL, fd);
		return JNI_FALSE;
	}
	return (p.revents & POLLIN) ? JNI_TRUE : JNI_FALSE;
}

/* Accept readiness, without rpoll. rdma-core 44's rlisten hands connection requests to a service thread that
 * accepts them in the background and queues them on a private socketpair; rpoll on a listening rsocket watches the
 * rdma_cm channel that thread drains, and so notices a queued connection only at its next periodic wake-up
 * (wake_up_interval, 5 s by default). Instead: poll(2) the channel itself, whose descriptor is the listening
 * rsocket's number in every librdmacm so far (rsocket() returns cm_id->channel->fd): POLLIN there means a request
 * is pending (older librdmacm: raccept takes it; newer: the service thread queues it within moments, and the
 * caller retries raccept with a short backoff). With watch_channel false this only waits for the wakeup fd.
 * Returns revents of the channel | SDP4J_WOKEN; 0 on timeout or EINTR. */
JNIEXPORT jint JFN(pollListener)(JNIEnv *env, jclass cls, jint fd, jint wakefd, jint timeout, jboolean watch_channel)
{
	struct pollfd p[2];
	jint res = 0;
	int n = 0, r;

	(void)cls;
	if (sdp4j_check_fd(env, "poll listener", fd, FDM(FD_LISTEN)) || check_wakefd(env, "poll listener", wakefd))
		return -1;
	if (watch_channel) {
		p[n].fd = fd;
		p[n].events = POLLIN;
		p[n++].revents = 0;
	}
	if (wakefd >= 0) {
		p[n].fd = wakefd;
		p[n].events = POLLIN;
		p[n++].revents = 0;
	}
	r = poll(p, (nfds_t)n, timeout < 0 ? -1 : timeout);
	if (r < 0) {
		if (errno == EINTR)
			return 0;
		sdp4j_throw_errno(env, errno, "poll listener", NULL, fd);
		return -1;
	}
	if (watch_channel)
		res = (jint)(unsigned short)p[0].revents;
	if (wakefd >= 0 && p[n - 1].revents)
		res |= SDP4J_WOKEN;
	return res;
}

/* A listening rsocket in a Poller set (rdma-core 44: see pollListener): rpoll alone notices a queued connection
 * only at its periodic wake-up. So a dup of the listener's rdma_cm channel rides along as a kernel descriptor;
 * when it fires, the request is pending, and the listener is re-checked with rpoll(0) (which looks at librdmacm's
 * accept queue) for a short while until librdmacm has queued it. Bounded; reports POLLIN at the end regardless
 * (a spurious readiness the caller's non-blocking accept tolerates). */
#define SETTLE_MAX_MS 500

static void settle_listeners(struct pollfd *p, const int *idx, int k, int wakefd)
{
	struct pollfd q[3], w = { wakefd, POLLIN, 0 }; /* q: room for rpoll_shared */
	struct timespec ts;
	int i, left, waited = 0, delay = 1;

	for (;;) {
		for (i = 0, left = 0; i < k; i++) {
			if (p[idx[i]].revents & POLLIN)
				continue;
			q[0].fd = p[idx[i]].fd;
			q[0].events = p[idx[i]].events;
			q[0].revents = 0;
			if (rpoll_shared(q, 1, 0) < 0) /* timeout 0: safe, see the top of this file */
				q[0].revents = 0;
			p[idx[i]].revents |= q[0].revents;
			left += !(q[0].revents & POLLIN);
		}
		if (!left || waited >= SETTLE_MAX_MS || (wakefd >= 0 && poll(&w, 1, 0) > 0))
			break;
		ts.tv_sec = 0;
		ts.tv_nsec = delay * 1000000L;
		nanosleep(&ts, NULL);
		waited += delay;
		delay = delay < 32 ? delay * 2 : 32;
	}
	for (i = 0; i < k; i++)
		p[idx[i]].revents |= POLLIN;
}

/* Poller.poll: rpoll over fds[0..n) (rsockets and kernel descriptors mixed) and the poller's wakeup fd, which
 * is drained when it fired. Returns the number of fds[] entries with events (the wakeup fd not counted).
 * Negative fds are left out of the rpoll set (revents 0, as poll(2) does): librdmacm up to at least v44 indexes
 * its descriptor table with them unchecked (idm_lookup without index >= 0).
 * Set layout: [0, m) the caller's fds, [m, m + k) dups of listeners' channels, the wakeup fd, the kick, the timer. */
#define STACK_FDS 32
JNIEXPORT jint JFN(pollMany)(JNIEnv *env, jclass cls, jintArray fds, jshortArray events, jshortArray revents,
			     jint n, jint wakefd, jint timeout, jboolean settle)
{
	struct pollfd stack[2 * STACK_FDS + 3], *p = stack; /* + the wakeup fd, the kick, the timer */
	int stack_map[2 * STACK_FDS], *map = stack_map; /* p[i] is fds[map[i]] (i < m); p[m + j] dups p[map[m + j]] */
	int lidx[STACK_FDS], *listeners = lidx, nl = 0;
	jint *jfds;
	jshort *jev, *jrev;
	int i, m = 0, k = 0, w, r, cnt = 0, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || check_wakefd(env, "rpoll", wakefd))
		return -1;
	if (!fds || !events || !revents) {
		sdp4j_throw(env, SDP4J_NPE, "rpoll: %s is null", !fds ? "fds" : !events ? "events" : "revents");
		return -1;
	}
	if (n < 0 || n > (*env)->GetArrayLength(env, fds) || n > (*env)->GetArrayLength(env, events) ||
	    n > (*env)->GetArrayLength(env, revents)) {
		sdp4j_throw(env, SDP4J_IOOBE, "rpoll: n %d out of bounds for fds %d, events %d, revents %d", (int)n,
			    (int)(*env)->GetArrayLength(env, fds), (int)(*env)->GetArrayLength(env, events),
			    (int)(*env)->GetArrayLength(env, revents));
		return -1;
	}
	if (n > STACK_FDS) {
		p = malloc(sizeof *p * (2 * (size_t)n + 3));
		map = malloc(sizeof *map * 2 * (size_t)n);
		listeners = malloc(sizeof *listeners * (size_t)n);
		if (!p || !map || !listeners) {
			sdp4j_throw_errno(env, ENOMEM, "rpoll", NULL, -1);
			goto out;
		}
	}
	jfds = (*env)->GetIntArrayElements(env, fds, NULL);
	jev = jfds ? (*env)->GetShortArrayElements(env, events, NULL) : NULL;
	if (!jev) {
		if (jfds)
			(*env)->ReleaseIntArrayElements(env, fds, jfds, JNI_ABORT);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (jfds[i] < 0)
			continue;
		p[m].fd = jfds[i];
		p[m].events = jev[i];
		p[m].revents = 0;
		map[m++] = i;
	}
	(*env)->ReleaseShortArrayElements(env, events, jev, JNI_ABORT);
	(*env)->ReleaseIntArrayElements(env, fds, jfds, JNI_ABORT);
	for (i = 0; i < m; i++) {
		int d;

		if (!(p[i].events & POLLIN) || sdp4j_fd_state(p[i].fd) != FD_LISTEN)
			continue;
		d = fcntl(p[i].fd, F_DUPFD_CLOEXEC, 0);
		if (d < 0)
			continue; /* no dup: rpoll alone, slower */
		p[m + k].fd = d;
		p[m + k].events = POLLIN;
		p[m + k].revents = 0;
		map[m + k++] = i;
	}
	w = m + k;
	if (wakefd >= 0) {
		p[w].fd = wakefd;
		p[w].events = POLLIN;
		p[w].revents = 0;
	}

	r = rpoll_shared(p, (nfds_t)w + (wakefd >= 0), timeout);
	err = errno;
	for (i = m; i < w; i++) {
		if (p[i].revents & POLLIN && r >= 0 && !(p[map[i]].revents & POLLIN))
			listeners[nl++] = map[i];
		close(p[i].fd);
	}
	if (r < 0 && err != EINTR) {
		sdp4j_throw_errno(env, err, "rpoll", NULL, -1);
		goto out;
	}
	if (r < 0)
		for (i = 0; i <= w; i++)
			p[i].revents = 0;
	if (nl && settle)
		settle_listeners(p, listeners, nl, wakefd);
	for (i = 0; i < nl && !settle; i++)
		p[listeners[i]].revents |= POLLIN; /* the caller's accept retries until librdmacm has queued it */
	if (wakefd >= 0 && p[w].revents)
		drain(wakefd);
	jrev = (*env)->GetShortArrayElements(env, revents, NULL);
	if (!jrev)
		goto out;
	for (i = 0; i < n; i++)
		jrev[i] = 0;
	for (i = 0; i < m; i++) {
		jrev[map[i]] = p[i].revents;
		cnt += p[i].revents != 0;
	}
	(*env)->ReleaseShortArrayElements(env, revents, jrev, 0);
out:
	if (p != stack)
		free(p);
	if (map != stack_map)
		free(map);
	if (listeners != lidx)
		free(listeners);
	return (*env)->ExceptionCheck(env) ? -1 : cnt;
}
