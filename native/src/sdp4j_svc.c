/* librdmacm's service threads, and the slots sdp4j lets rsockets take in them.
 *
 * librdmacm before rdma-core v53 (fixed by commit 24061f015 "rsockets: Fix for cm_svc_run thread"; Debian
 * bookworm ships 44) corrupts memory when the set of a connection-manager service thread grows while the thread
 * runs. cm_svc_run() keeps the pointer to the pollfd array it found when it started; rs_svc_add_rs() grows the set
 * in steps of 4 (rs_svc_grow_sets: calloc, copy, free the old one), so when the 4th rsocket joins, the thread goes
 * on polling the freed array: poll(2) writes revents into freed heap (malloc's chunk headers: a SIGSEGV in libc
 * later), reads stale descriptors (a spin on POLLNVAL), never watches the new members, and once malloc reuses the
 * block it stops watching its own control socket, so the next rs_notify_svc() blocks for ever in read_all() with
 * svc_mut held, and with it every raccept, non-blocking rconnect and rclose of the process.
 * Who joins: every accepted rsocket (raccept) and every non-blocking rconnect that returns EINPROGRESS join
 * connect_svc for their whole life (they leave in rclose); every listener joins listen_svc.
 *
 * Workaround: a set grows safely only when its thread starts: the thread exits when the set empties, and each
 * start grows the set by 4 (svc->size is never reset) and takes a fresh pointer. So before the first rsocket
 * joins, sdp4j cycles each thread N times (join with a throw-away rsocket, leave with rclose: the set is empty,
 * the thread exits): the next start then finds 4N + 4 slots. sdp4j counts one slot per rsocket that may be a
 * member (connecting, connected or accepted; listening) and refuses one more than the cycles made room for, with
 * an error that names the limit and the property that raises it: never a grow under a running thread.
 *
 * A connect cycle joins only when rconnect returns EINPROGRESS. Aimed at a port that refuses, the whole exchange
 * (address, route, request, reject) can finish inside rconnect: under TCG in CI every one of 64 cycles in a row did,
 * and the process was left with 3 slots. So the cycles aim at a sink: an rdma_cm listener of sdp4j's own on a local
 * address of an RDMA device, which never answers a request. rconnect cannot complete against it, so it returns
 * EINPROGRESS whatever the timing, and no request leaves the host. Where no sink can be made, the cycles aim at
 * port 9 of 127.0.0.1 and of the destination, as before. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "sdp4j.h"

#define FIXED_IN 53 /* the rdma-core release with 24061f015 */

struct svc {
	const char *what, *property;
	int used;   /* slots held by sdp4j's rsockets */
	int cap;    /* slots that never grow a running thread's set */
	int target; /* what the cycles aim for (Native.serviceSlots) */
	int cycled; /* cycles done */
};

static pthread_mutex_t svc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct svc svcs[] = {
	[SDP4J_SVC_CONNECT] = { "connection", "sdp4j.rsocket.maxConnections", 0, 3, 1024, 0 },
	[SDP4J_SVC_LISTEN] = { "listener", "sdp4j.rsocket.maxListeners", 0, 3, 64, 0 },
};
static int affected = -1;
static unsigned char slot_of[SDP4J_FD_MAX]; /* 1 + kind of the slot an fd holds, 0 none */

/* The file name of the library that provides rsocket(), resolved (librdmacm.so.1.3.44.0), in path; NULL when unknown. */
static const char *rdmacm_file(char *path)
{
	Dl_info info;
	const char *base;

	if (!dladdr((void *)R.rsocket, &info) || !info.dli_fname || !realpath(info.dli_fname, path))
		return NULL;
	base = strrchr(path, '/');
	return base ? base + 1 : path;
}

/* From the file name rdma-core gives the library (librdmacm.so.1.3.44.0: version 44). A library that is not
 * librdmacm (a test stand-in named with -Dsdp4j.rdmacm.lib) has no service threads to guard; a librdmacm whose
 * name carries no version is taken to be affected. */
static int is_affected(void)
{
	char path[PATH_MAX];
	const char *base = rdmacm_file(path);
	unsigned long v;
	char *end;

	if (!base)
		return 1;
	if (strncmp(base, "librdmacm.so", 12))
		return 0;
	if (strncmp(base, "librdmacm.so.1.3.", 17))
		return 1;
	v = strtoul(base + 17, &end, 10);
	return end == base + 17 || v < FIXED_IN;
}

/* 1 when the rsockets in use are librdmacm's (not a test stand-in named with -Dsdp4j.rdmacm.lib, whose descriptors
 * are plain sockets), 0 otherwise; decided once. */
int sdp4j_real_rdmacm(void)
{
	static int real = -1;
	char path[PATH_MAX];
	const char *base;

	if (real < 0) {
		base = rdmacm_file(path);
		real = !base || !strncmp(base, "librdmacm.so", 12);
	}
	return real;
}

/* Why the last cycle did not join, for the limit's error message. */
static char why[160];

/* The sink: librdmacm's connection-manager calls, looked up in the library R came from when first needed (the
 * test stand-in named with -Dsdp4j.rdmacm.lib has none and never cycles), and the listener while it lives. */
static struct {
	__typeof__(rdma_create_event_channel) *create_channel;
	__typeof__(rdma_destroy_event_channel) *destroy_channel;
	__typeof__(rdma_create_id) *create_id;
	__typeof__(rdma_destroy_id) *destroy_id;
	__typeof__(rdma_bind_addr) *bind_addr;
	__typeof__(rdma_listen) *listen;
	__typeof__(rdma_get_cm_event) *get_event;
	__typeof__(rdma_ack_cm_event) *ack_event;
} cm;
static struct {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct sockaddr_storage addr; /* where it listens, port included */
	socklen_t len;
	int misses; /* cycles in a row that did not join while aimed at it */
	int joined; /* cycles that joined aimed at it, over the process's life (Native.serviceState) */
} sink;

static int cm_lookup(void)
{
	void *p;

	if (cm.ack_event)
		return 0;
	if (!R.handle)
		return -1;
#define CM_SYM(field, name) \
	if (!(p = dlsym(R.handle, #name))) \
		return -1; \
	memcpy(&cm.field, &p, sizeof p);
	CM_SYM(create_channel, rdma_create_event_channel)
	CM_SYM(destroy_channel, rdma_destroy_event_channel)
	CM_SYM(create_id, rdma_create_id)
	CM_SYM(destroy_id, rdma_destroy_id)
	CM_SYM(bind_addr, rdma_bind_addr)
	CM_SYM(listen, rdma_listen)
	CM_SYM(get_event, rdma_get_cm_event)
	CM_SYM(ack_event, rdma_ack_cm_event)
#undef CM_SYM
	return 0;
}

static socklen_t addr_len(const struct sockaddr *a)
{
	return a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* A listener on address a (any port); 0 when it listens. rdma_bind_addr to an address fails unless an RDMA
 * device serves it, so this also finds out whether a does. */
static int sink_listen_on(const struct sockaddr *a)
{
	struct sockaddr_storage ss;
	socklen_t len = addr_len(a);

	memcpy(&ss, a, len);
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	else
		((struct sockaddr_in *)&ss)->sin_port = 0;
	if (cm.create_id(sink.ch, &sink.id, NULL, RDMA_PS_TCP)) {
		sink.id = NULL;
		return -1;
	}
	if (!cm.bind_addr(sink.id, (struct sockaddr *)&ss) && !cm.listen(sink.id, 128)) {
		memcpy(&sink.addr, rdma_get_local_addr(sink.id), len);
		sink.len = len;
		return 0;
	}
	cm.destroy_id(sink.id);
	sink.id = NULL;
	return -1;
}

/* The local address the kernel would send from towards dst (a UDP connect sends nothing); 0 when found. */
static int source_towards(const struct sockaddr *dst, socklen_t len, struct sockaddr_storage *src)
{
	socklen_t slen = sizeof *src;
	int fd, ret;

	fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	ret = connect(fd, dst, len) || getsockname(fd, (struct sockaddr *)src, &slen);
	close(fd);
	return ret ? -1 : 0;
}

static int usable(const struct sockaddr *a, int loopback)
{
	if (a->sa_family == AF_INET)
		return (((const struct sockaddr_in *)a)->sin_addr.s_addr == htonl(INADDR_ANY)) ? 0 : 1;
	if (a->sa_family == AF_INET6) /* link-local would need a scope; the wildcard listens nowhere in particular */
		return !IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)a)->sin6_addr) &&
		       !IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)a)->sin6_addr) &&
		       (loopback || !IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr));
	return 0;
}

/* Opens the sink on the address towards dst when an RDMA device serves it, else on the first local address one
 * serves (loopback last); 0 when it listens. */
static int sink_open(const struct sockaddr *dst, socklen_t len)
{
	struct sockaddr_storage src;
	struct ifaddrs *ifs, *i;
	int pass, fl;

	if (cm_lookup() || !(sink.ch = cm.create_channel()))
		return -1;
	fl = fcntl(sink.ch->fd, F_GETFL);
	if (fl < 0 || fcntl(sink.ch->fd, F_SETFL, fl | O_NONBLOCK))
		goto fail;
	sink.misses = 0;
	if (dst && usable(dst, 1) && !source_towards(dst, len, &src) && !sink_listen_on((struct sockaddr *)&src))
		return 0;
	if (getifaddrs(&ifs))
		goto fail;
	for (pass = 0; pass < 2; pass++)
		for (i = ifs; i; i = i->ifa_next)
			if (i->ifa_addr && (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK) == !pass &&
			    usable(i->ifa_addr, pass) && !sink_listen_on(i->ifa_addr)) {
				freeifaddrs(ifs);
				return 0;
			}
	freeifaddrs(ifs);
fail:
	cm.destroy_channel(sink.ch);
	sink.ch = NULL;
	return -1;
}

/* Reads what reached the sink: each connection request is refused by destroying its id (ack first: librdmacm
 * waits for the acks of an id's events before it destroys the id). */
static void sink_drain(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *child;

	while (sink.ch && !cm.get_event(sink.ch, &ev)) {
		child = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ? ev->id : NULL;
		cm.ack_event(ev);
		if (child)
			cm.destroy_id(child);
	}
}

static void sink_close(void)
{
	if (!sink.ch)
		return;
	sink_drain();
	if (sink.id)
		cm.destroy_id(sink.id);
	cm.destroy_channel(sink.ch);
	sink.id = NULL;
	sink.ch = NULL;
}

/* One start and exit of connect_svc's thread: a non-blocking rconnect to dst joins it when it returns
 * EINPROGRESS, the rclose right after leaves it. port 0 keeps dst's port (the sink), else it is the port aimed at
 * (9: were a connection request sent, it would be refused). 1 when the rsocket joined. */
static int cycle_connect(const struct sockaddr *dst, socklen_t len, int port)
{
	struct sockaddr_storage ss;
	char host[96];
	int fd, ret, err;

	memcpy(&ss, dst, len);
	if (port && ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	else if (port)
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	fd = R.rsocket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0) {
		snprintf(why, sizeof why, "rsocket: %s", strerror(errno));
		return 0;
	}
	ret = R.rfcntl(fd, F_SETFL, O_NONBLOCK) ? 0 : R.rconnect(fd, (struct sockaddr *)&ss, len);
	err = errno;
	R.rclose(fd);
	if (ret == -1 && err == EINPROGRESS)
		return 1;
	sdp4j_format_addr((struct sockaddr *)&ss, host, sizeof host);
	snprintf(why, sizeof why, "rconnect %s returned %d: %s", host, ret, ret ? strerror(err) : "connected at once");
	errno = ret ? err : 0;
	return 0;
}

/* The same for listen_svc: rlisten on 127.0.0.1, any port. */
static int cycle_listen(void)
{
	struct sockaddr_in sin;
	int fd, ret;

	fd = R.rsocket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 0;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ret = R.rbind(fd, (struct sockaddr *)&sin, sizeof sin) || R.rlisten(fd, 1);
	if (ret)
		snprintf(why, sizeof why, "rbind/rlisten 127.0.0.1: %s", strerror(errno));
	R.rclose(fd);
	return !ret;
}

/* Under svc_lock, only while no sdp4j rsocket is a member: cycles until cap reaches the target. Bounded: it stops
 * after 64 misses in a row (a cycle that did not join) or three times the cycles needed; cap then stays as it is.
 * Connect cycles aim at the sink while it has not missed 8 times in a row; without it, at port 9 of 127.0.0.1 (no
 * traffic at all) until that fails at once with ENODEV (some processes resolve loopback to no RDMA device), then
 * of the caller's destination, and after any other miss at the other of the two once. */
static void cycle(int kind, const struct sockaddr *dst, socklen_t len)
{
	struct svc *s = &svcs[kind];
	struct sockaddr_in lo;
	int misses = 0, loops = 0, budget = 3 * (s->target - s->cap) / 4 + 32, no_loopback = 0;

	memset(&lo, 0, sizeof lo);
	lo.sin_family = AF_INET;
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (kind == SDP4J_SVC_CONNECT)
		sink_open(dst, len);
	while (s->cap < s->target && misses < 64 && loops++ < budget) {
		int to_sink = kind == SDP4J_SVC_CONNECT && sink.ch && sink.misses < 8;
		int far = !to_sink && dst && (no_loopback || (misses && loops % 2));
		int joined = kind == SDP4J_SVC_LISTEN ? cycle_listen() :
			     to_sink ? cycle_connect((struct sockaddr *)&sink.addr, sink.len, 0) :
			     cycle_connect(far ? dst : (struct sockaddr *)&lo, far ? len : sizeof lo, 9);

		if (to_sink) {
			sink_drain();
			sink.misses = joined ? 0 : sink.misses + 1;
			sink.joined += joined;
		}
		if (!joined && !to_sink && !far && kind == SDP4J_SVC_CONNECT && errno == ENODEV)
			no_loopback = 1;
		if (joined) {
			s->cycled++;
			s->cap = 4 * s->cycled + 3;
			misses = 0;
		} else {
			misses++;
		}
	}
	sink_close();
}

int sdp4j_svc_reserve(JNIEnv *env, int kind, const char *call, const struct sockaddr *dst, socklen_t len)
{
	struct svc *s = &svcs[kind];
	int ok;

	pthread_mutex_lock(&svc_lock);
	if (affected < 0)
		affected = is_affected();
	if (!affected) {
		pthread_mutex_unlock(&svc_lock);
		return 0;
	}
	if (s->used == 0 && s->cap < s->target)
		cycle(kind, dst, len);
	ok = s->used < s->cap;
	if (ok)
		s->used++;
	pthread_mutex_unlock(&svc_lock);
	if (!ok)
		sdp4j_throw(env, SDP4J_SOCKX,
			    "%s: rsocket %s limit %d reached: librdmacm before rdma-core %d corrupts memory when its "
			    "service thread's set grows while it runs, so sdp4j sizes it before the first %s "
			    "(raise -D%s=N, %d now)%s%s", call, s->what, s->cap, FIXED_IN, s->what, s->property, s->target,
			    s->cap < s->target && why[0] ? "; sizing stopped: " : "", s->cap < s->target ? why : "");
	return ok ? 0 : -1;
}

void sdp4j_svc_release(int kind)
{
	if (kind < 0)
		return;
	pthread_mutex_lock(&svc_lock);
	if (affected > 0 && svcs[kind].used > 0)
		svcs[kind].used--;
	pthread_mutex_unlock(&svc_lock);
}

void sdp4j_svc_hold(int fd, int kind)
{
	if (fd >= 0 && fd < SDP4J_FD_MAX)
		__atomic_store_n(&slot_of[fd], (unsigned char)(kind + 1), __ATOMIC_RELEASE);
}

int sdp4j_svc_take(int fd)
{
	if (fd < 0 || fd >= SDP4J_FD_MAX)
		return -1;
	return (int)__atomic_exchange_n(&slot_of[fd], 0, __ATOMIC_ACQ_REL) - 1;
}

#define JFN(name) JNICALL Java_org_sdp4j_rsocket_Native_##name

/* Native.serviceSlots: how many connections and listeners the cycles make room for; takes effect when no sdp4j
 * rsocket is a member (at the latest before the first connection). */
JNIEXPORT void JFN(serviceSlots)(JNIEnv *env, jclass cls, jint connections, jint listeners)
{
	(void)cls;
	if (connections < 1 || connections > SDP4J_FD_MAX || listeners < 1 || listeners > SDP4J_FD_MAX) {
		sdp4j_throw(env, SDP4J_IAE, "serviceSlots: connections %d and listeners %d must be in 1..%d",
			    (int)connections, (int)listeners, SDP4J_FD_MAX);
		return;
	}
	pthread_mutex_lock(&svc_lock);
	svcs[SDP4J_SVC_CONNECT].target = connections;
	svcs[SDP4J_SVC_LISTEN].target = listeners;
	pthread_mutex_unlock(&svc_lock);
}

/* Native.serviceState: [affected (0/1, -1 unknown yet), connection slots used, cap, listener slots used, cap,
 * connect cycles that joined aimed at the sink], for tests and error reports. */
JNIEXPORT jintArray JFN(serviceState)(JNIEnv *env, jclass cls)
{
	jint v[6];
	jintArray a;

	(void)cls;
	pthread_mutex_lock(&svc_lock);
	v[0] = affected;
	v[1] = svcs[SDP4J_SVC_CONNECT].used;
	v[2] = svcs[SDP4J_SVC_CONNECT].cap;
	v[3] = svcs[SDP4J_SVC_LISTEN].used;
	v[4] = svcs[SDP4J_SVC_LISTEN].cap;
	v[5] = sink.joined;
	pthread_mutex_unlock(&svc_lock);
	a = (*env)->NewIntArray(env, 6);
	if (a)
		(*env)->SetIntArrayRegion(env, a, 0, 6, v);
	return a;
}
