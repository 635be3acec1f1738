/* The rsocket binding: lifecycle (socket/bind/listen/accept/connect/shutdown/close), data (byte[] and direct
 * ByteBuffer), options. Every rsocket is non-blocking from birth: data calls never wait inside librdmacm, the
 * Java side waits in rpoll (sdp4j_poll.c) together with its wakeup eventfd, so SO_TIMEOUT is exact and an async
 * close wakes a blocked reader, writer, acceptor or connector.
 *
 * byte[] access is GetPrimitiveArrayCritical: no copy on HotSpot, and it is safe to hold here because the region
 * only spans one non-blocking rrecv/rsend, which copies at most what is already received (<= the rsocket's
 * receive buffer) or what fits in its send buffer (<= SO_SNDBUF): a bounded memcpy, never a wait. A bounce buffer
 * would add a copy on every call for nothing. Direct ByteBuffers are used in place (GetDirectBufferAddress). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sdp4j.h"

/* ---- descriptor table ---- */

static unsigned char fdtab[SDP4J_FD_MAX];

int sdp4j_fd_state(int fd)
{
	if (fd < 0 || fd >= SDP4J_FD_MAX)
		return FD_NONE;
	return __atomic_load_n(&fdtab[fd], __ATOMIC_ACQUIRE);
}

void sdp4j_fd_set(int fd, enum sdp4j_fdstate st)
{
	if (fd >= 0 && fd < SDP4J_FD_MAX)
		__atomic_store_n(&fdtab[fd], (unsigned char)st, __ATOMIC_RELEASE);
}

static const char *state_name(int st)
{
	static const char *const names[] = { "not an open rsocket", "not connected", "listening",
					     "still connecting", "connected", "a wakeup descriptor" };
	return st >= 0 && st <= FD_EVENT ? names[st] : "?";
}

int sdp4j_check_fd(JNIEnv *env, const char *call, jint fd, unsigned mask)
{
	int st = sdp4j_fd_state(fd);

	if (mask & FDM(st) && st != FD_NONE)
		return 0;
	if (st == FD_NONE)
		sdp4j_throw(env, SDP4J_SOCKX, "%s fd %d: Bad file descriptor (%s)", call, (int)fd,
			    fd < 0 ? "negative" : "not an open rsocket, or already closed");
	else if (mask == FDM(FD_EVENT))
		sdp4j_throw(env, SDP4J_SOCKX, "%s fd %d: Invalid argument (not a wakeup eventfd: %s)", call, (int)fd,
			    state_name(st));
	else
		sdp4j_throw(env, SDP4J_SOCKX, "%s fd %d: %s (the socket is %s)", call, (int)fd,
			    st == FD_LISTEN || st == FD_OPEN || st == FD_CONNECTING ? strerror(ENOTCONN) :
										   strerror(EINVAL),
			    state_name(st));
	return -1;
}

/* The peer of each connected rsocket, for the messages of data calls: after a reset rgetpeername may no longer
 * answer, and "rsend 10.9.9.1:50000: Connection reset by peer" says more than a descriptor number. Pages of
 * PEER_PAGE entries are allocated on first use and kept for the life of the process. */
union peer {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};
#define PEER_PAGE 1024
static union peer *peers[SDP4J_FD_MAX / PEER_PAGE];

static void peer_set(int fd, const struct sockaddr *sa)
{
	union peer *pg, *fresh;

	if (fd < 0 || fd >= SDP4J_FD_MAX)
		return;
	pg = __atomic_load_n(&peers[fd / PEER_PAGE], __ATOMIC_ACQUIRE);
	if (!pg && !sa)
		return;
	if (!pg) {
		fresh = calloc(PEER_PAGE, sizeof *fresh);
		if (!fresh)
			return;
		if (__atomic_compare_exchange_n(&peers[fd / PEER_PAGE], &pg, fresh, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			pg = fresh;
		else
			free(fresh);
	}
	if (!sa)
		memset(&pg[fd % PEER_PAGE], 0, sizeof *pg);
	else
		memcpy(&pg[fd % PEER_PAGE], sa, sa->sa_family == AF_INET6 ? sizeof pg->in6 : sizeof pg->in);
}

static const struct sockaddr *peer_get(int fd)
{
	union peer *pg;

	if (fd < 0 || fd >= SDP4J_FD_MAX)
		return NULL;
	pg = __atomic_load_n(&peers[fd / PEER_PAGE], __ATOMIC_ACQUIRE);
	return pg && pg[fd % PEER_PAGE].sa.sa_family ? &pg[fd % PEER_PAGE].sa : NULL;
}

/* ---- helpers ---- */

static int to_sockaddr(JNIEnv *env, const char *call, jbyteArray addr, jint scope, jint port,
		       struct sockaddr_storage *ss, socklen_t *len)
{
	jsize n;

	if (!addr) {
		sdp4j_throw(env, SDP4J_NPE, "%s: address is null", call);
		return -1;
	}
	if (port < 0 || port > 65535) {
		sdp4j_throw(env, SDP4J_IAE, "%s: port out of range: %d", call, (int)port);
		return -1;
	}
	n = (*env)->GetArrayLength(env, addr);
	memset(ss, 0, sizeof *ss);
	if (n == 4) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		(*env)->GetByteArrayRegion(env, addr, 0, 4, (jbyte *)&in->sin_addr);
		*len = sizeof *in;
	} else if (n == 16) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		in6->sin6_scope_id = (uint32_t)scope;
		(*env)->GetByteArrayRegion(env, addr, 0, 16, (jbyte *)&in6->sin6_addr);
		*len = sizeof *in6;
	} else {
		sdp4j_throw(env, SDP4J_IAE, "%s: address must have 4 or 16 bytes, not %d", call, (int)n);
		return -1;
	}
	return (*env)->ExceptionCheck(env) ? -1 : 0;
}

/* The peer for error messages of data calls (error path only). */
static void throw_data_errno(JNIEnv *env, int err, const char *call, int fd)
{
	sdp4j_throw_errno(env, err, call, peer_get(fd), fd);
}

static int would_block(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK;
}

/* The rsocket to this call alone (sdp4j_rslock.c: librdmacm's accounting is not safe against an rpoll of another
 * thread), or NULL with the exception thrown. */
static struct sdp4j_rsl *lock_rs(JNIEnv *env, const char *call, int fd)
{
	struct sdp4j_rsl *l = sdp4j_rs_lock(fd);

	if (!l)
		sdp4j_throw_errno(env, ENOMEM, call, NULL, fd);
	return l;
}

#define JFN(name) JNICALL Java_org_sdp4j_rsocket_Native_##name

/* ---- load and probe ---- */

JNIEXPORT jstring JFN(init)(JNIEnv *env, jclass cls, jstring name)
{
	const char *n;
	int ret;

	(void)cls;
	if (!name) {
		sdp4j_throw(env, SDP4J_NPE, "init: library name is null");
		return NULL;
	}
	n = (*env)->GetStringUTFChars(env, name, NULL);
	if (!n)
		return NULL;
	ret = sdp4j_dl_open(n);
	(*env)->ReleaseStringUTFChars(env, name, n);
	return ret ? (*env)->NewStringUTF(env, sdp4j_dl_error()) : NULL;
}

/* NULL when rsockets can be used here, else why not: no device, or rdma_cm unusable. */
JNIEXPORT jstring JFN(probe)(JNIEnv *env, jclass cls)
{
	struct ibv_context **devs;
	char msg[256];
	int n = 0, fd;

	(void)cls;
	if (!R.loaded)
		return (*env)->NewStringUTF(env, sdp4j_dl_error());
	errno = 0;
	devs = R.rdma_get_devices(&n);
	if (!devs || n <= 0) {
		snprintf(msg, sizeof msg, "no RDMA device: rdma_get_devices found none (%s); load a driver, e.g. "
			 "soft-RoCE: rdma link add rxe0 type rxe netdev <if>", strerror(errno ? errno : ENODEV));
		if (devs)
			R.rdma_free_devices(devs);
		return (*env)->NewStringUTF(env, msg);
	}
	R.rdma_free_devices(devs);
	fd = R.rsocket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		snprintf(msg, sizeof msg, "%d RDMA device(s), but rsocket() fails: %s (is rdma_ucm loaded and "
			 "/dev/infiniband/rdma_cm accessible?)", n, strerror(errno));
		return (*env)->NewStringUTF(env, msg);
	}
	R.rclose(fd);
	return NULL;
}

/* ---- lifecycle ---- */

JNIEXPORT jint JFN(socket)(JNIEnv *env, jclass cls, jboolean ipv6)
{
	int fd, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env))
		return -1;
	fd = R.rsocket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		sdp4j_throw_errno(env, errno, "rsocket", NULL, -1);
		return -1;
	}
	if (fd >= SDP4J_FD_MAX) {
		R.rclose(fd);
		sdp4j_throw_errno(env, EMFILE, "rsocket", NULL, fd);
		return -1;
	}
	if (R.rfcntl(fd, F_SETFL, O_NONBLOCK)) {
		err = errno;
		R.rclose(fd);
		sdp4j_throw_errno(env, err, "rfcntl O_NONBLOCK", NULL, fd);
		return -1;
	}
	sdp4j_fd_set(fd, FD_OPEN);
	return fd;
}

JNIEXPORT void JFN(bind)(JNIEnv *env, jclass cls, jint fd, jbyteArray addr, jint scope, jint port)
{
	struct sockaddr_storage ss;
	struct sdp4j_rsl *l;
	socklen_t len;
	int ret, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rbind", fd, FDM(FD_OPEN)) ||
	    to_sockaddr(env, "rbind", addr, scope, port, &ss, &len))
		return;
	if (!(l = lock_rs(env, "rbind", fd)))
		return;
	ret = R.rbind(fd, (struct sockaddr *)&ss, len);
	err = errno;
	sdp4j_rs_unlock(l);
	if (ret)
		sdp4j_throw_errno(env, err, "rbind", (struct sockaddr *)&ss, fd);
}

JNIEXPORT void JFN(listen)(JNIEnv *env, jclass cls, jint fd, jint backlog)
{
	struct sdp4j_rsl *l;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rlisten", fd, FDM(FD_OPEN) | FDM(FD_LISTEN)))
		return;
	if (sdp4j_fd_state(fd) == FD_LISTEN)
		return; /* rlisten again changes nothing in librdmacm */
	if (sdp4j_svc_reserve(env, SDP4J_SVC_LISTEN, "rlisten", NULL, 0))
		return;
	if (!(l = lock_rs(env, "rlisten", fd))) {
		sdp4j_svc_release(SDP4J_SVC_LISTEN);
		return;
	}
	if (R.rlisten(fd, backlog > 0 ? backlog : 50)) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;
		int err = errno;

		R.rgetsockname(fd, (struct sockaddr *)&ss, &len);
		sdp4j_rs_unlock(l);
		sdp4j_svc_release(SDP4J_SVC_LISTEN);
		sdp4j_throw_errno(env, err, "rlisten", (struct sockaddr *)&ss, fd);
		return;
	}
	sdp4j_rs_unlock(l);
	sdp4j_svc_hold(fd, SDP4J_SVC_LISTEN);
	sdp4j_fd_set(fd, FD_LISTEN);
}

/* true: connected; false: in progress, wait for POLLOUT with rpoll, then finishConnect. */
JNIEXPORT jboolean JFN(connect)(JNIEnv *env, jclass cls, jint fd, jbyteArray addr, jint scope, jint port)
{
	struct sockaddr_storage ss;
	struct sdp4j_rsl *l;
	socklen_t len;
	int ret, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rconnect", fd, FDM(FD_OPEN)) ||
	    to_sockaddr(env, "rconnect", addr, scope, port, &ss, &len))
		return JNI_FALSE;
	if (sdp4j_svc_reserve(env, SDP4J_SVC_CONNECT, "rconnect", (struct sockaddr *)&ss, len))
		return JNI_FALSE;
	peer_set(fd, (struct sockaddr *)&ss);
	if (!(l = lock_rs(env, "rconnect", fd))) {
		sdp4j_svc_release(SDP4J_SVC_CONNECT);
		return JNI_FALSE;
	}
	ret = R.rconnect(fd, (struct sockaddr *)&ss, len);
	err = errno;
	sdp4j_rs_unlock(l);
	errno = err;
	if (!ret) {
		sdp4j_svc_hold(fd, SDP4J_SVC_CONNECT);
		sdp4j_fd_set(fd, FD_CONNECTED);
		return JNI_TRUE;
	}
	if (errno == EINPROGRESS || would_block(errno)) {
		sdp4j_svc_hold(fd, SDP4J_SVC_CONNECT);
		sdp4j_fd_set(fd, FD_CONNECTING);
		return JNI_FALSE;
	}
	err = errno;
	sdp4j_svc_release(SDP4J_SVC_CONNECT); /* failed at once: never joined */
	sdp4j_throw_errno(env, err, "rconnect", (struct sockaddr *)&ss, fd);
	return JNI_FALSE;
}

/* After rpoll reported `revents` for a connecting rsocket: SO_ERROR says how the connect ended. */
JNIEXPORT void JFN(finishConnect)(JNIEnv *env, jclass cls, jint fd, jint revents, jbyteArray addr, jint scope,
				  jint port)
{
	struct sockaddr_storage ss;
	struct sdp4j_rsl *l;
	socklen_t len, olen;
	int err = 0;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rconnect", fd, FDM(FD_CONNECTING)) ||
	    to_sockaddr(env, "rconnect", addr, scope, port, &ss, &len))
		return;
	olen = sizeof err;
	if (!(l = lock_rs(env, "rconnect", fd)))
		return;
	if (R.rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &olen))
		err = errno;
	sdp4j_rs_unlock(l);
	if (!err && (revents & (POLLERR | POLLHUP | POLLNVAL)))
		err = ECONNABORTED; /* failed without saying why */
	if (!err && !(revents & POLLOUT)) {
		sdp4j_throw(env, SDP4J_IAE, "rconnect fd %d: finishConnect before the connect completed (revents 0x%x)",
			    (int)fd, (unsigned)revents);
		return;
	}
	if (err) {
		sdp4j_throw_errno(env, err, "rconnect", (struct sockaddr *)&ss, fd);
		return;
	}
	sdp4j_fd_set(fd, FD_CONNECTED);
}

/* A new connected rsocket, or SDP4J_UNAVAILABLE when none is pending. The new rsocket may still be completing
 * its handshake: its first rrecv/rsend/rpoll finishes that (librdmacm's rs_accepting state). */
JNIEXPORT jint JFN(accept)(JNIEnv *env, jclass cls, jint fd)
{
	struct sdp4j_rsl *l;
	int nfd, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "raccept", fd, FDM(FD_LISTEN)))
		return SDP4J_THROWN;
	{ /* an accepted rsocket joins connect_svc */
		struct sockaddr_storage ls;
		socklen_t llen = sizeof ls;
		int named = !R.rgetsockname(fd, (struct sockaddr *)&ls, &llen);

		if (sdp4j_svc_reserve(env, SDP4J_SVC_CONNECT, "raccept", named ? (struct sockaddr *)&ls : NULL,
				      named ? llen : 0))
			return SDP4J_THROWN;
	}
	if (!(l = lock_rs(env, "raccept", fd))) {
		sdp4j_svc_release(SDP4J_SVC_CONNECT);
		return SDP4J_THROWN;
	}
	nfd = R.raccept(fd, NULL, NULL);
	if (nfd < 0) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;

		err = errno;
		sdp4j_svc_release(SDP4J_SVC_CONNECT);
		if (would_block(err)) {
			sdp4j_rs_unlock(l);
			return SDP4J_UNAVAILABLE;
		}
		R.rgetsockname(fd, (struct sockaddr *)&ss, &len);
		sdp4j_rs_unlock(l);
		sdp4j_throw_errno(env, err, "raccept", (struct sockaddr *)&ss, fd);
		return SDP4J_THROWN;
	}
	sdp4j_rs_unlock(l); /* the new rsocket is this thread's alone until it returns */
	if (nfd >= SDP4J_FD_MAX) {
		R.rclose(nfd);
		sdp4j_svc_release(SDP4J_SVC_CONNECT);
		sdp4j_throw_errno(env, EMFILE, "raccept", NULL, fd);
		return SDP4J_THROWN;
	}
	if (R.rfcntl(nfd, F_SETFL, O_NONBLOCK)) {
		err = errno;
		R.rclose(nfd);
		sdp4j_svc_release(SDP4J_SVC_CONNECT);
		sdp4j_throw_errno(env, err, "rfcntl O_NONBLOCK", NULL, nfd);
		return SDP4J_THROWN;
	}
	sdp4j_svc_hold(nfd, SDP4J_SVC_CONNECT);
	{
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;

		peer_set(nfd, R.rgetpeername(nfd, (struct sockaddr *)&ss, &len) ? NULL : (struct sockaddr *)&ss);
	}
	sdp4j_fd_set(nfd, FD_CONNECTED);
	return nfd;
}

/* Local (peer=false) or remote address: 4 address bytes + 2 port bytes, or 16 + 2 + 4 scope bytes (big endian). */
JNIEXPORT jbyteArray JFN(sockname)(JNIEnv *env, jclass cls, jint fd, jboolean peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	jbyte out[22];
	jsize n;
	jbyteArray a;
	const char *call = peer ? "rgetpeername" : "rgetsockname";
	struct sdp4j_rsl *l;
	int ret, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, call, fd, FDM_RSOCKET))
		return NULL;
	memset(&ss, 0, sizeof ss);
	if (!(l = lock_rs(env, call, fd)))
		return NULL;
	ret = peer ? R.rgetpeername(fd, (struct sockaddr *)&ss, &len) : R.rgetsockname(fd, (struct sockaddr *)&ss, &len);
	err = errno;
	sdp4j_rs_unlock(l);
	if (ret) {
		sdp4j_throw_errno(env, err, call, NULL, fd);
		return NULL;
	}
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		memcpy(out, &in->sin_addr, 4);
		memcpy(out + 4, &in->sin_port, 2);
		n = 6;
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		uint32_t scope = htonl(in6->sin6_scope_id);

		memcpy(out, &in6->sin6_addr, 16);
		memcpy(out + 16, &in6->sin6_port, 2);
		memcpy(out + 18, &scope, 4);
		n = 22;
	} else {
		sdp4j_throw(env, SDP4J_SOCKX, "%s fd %d: unexpected address family %d", call, (int)fd, ss.ss_family);
		return NULL;
	}
	a = (*env)->NewByteArray(env, n);
	if (a)
		(*env)->SetByteArrayRegion(env, a, 0, n, out);
	return a;
}

JNIEXPORT void JFN(shutdown)(JNIEnv *env, jclass cls, jint fd, jint how)
{
	struct sdp4j_rsl *l;
	int ret, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rshutdown", fd, FDM(FD_CONNECTED)))
		return;
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
		sdp4j_throw(env, SDP4J_IAE, "rshutdown fd %d: bad 'how' %d", (int)fd, (int)how);
		return;
	}
	if (!(l = lock_rs(env, "rshutdown", fd)))
		return;
	ret = R.rshutdown(fd, how);
	err = errno;
	sdp4j_rs_unlock(l);
	if (ret)
		throw_data_errno(env, err, "rshutdown", fd);
}

JNIEXPORT void JFN(close)(JNIEnv *env, jclass cls, jint fd)
{
	struct sdp4j_rsl *l;
	int ret, slot, err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rclose", fd, FDM_RSOCKET))
		return;
	if (!(l = lock_rs(env, "rclose", fd)))
		return;
	sdp4j_fd_set(fd, FD_NONE); /* before rclose: the number may be reused as soon as it is closed */
	peer_set(fd, NULL);
	slot = sdp4j_svc_take(fd);
	ret = R.rclose(fd);	   /* 0, -1 with errno, or an errno value itself (EBADF) */
	err = ret > 0 ? ret : errno;
	sdp4j_rs_unlock(l);	   /* a new rsocket with this number waits for rclose to be over */
	sdp4j_svc_release(slot);   /* after rclose: it has left the service thread's set */
	if (ret)
		sdp4j_throw_errno(env, err, "rclose", NULL, fd);
}

/* ---- data ---- */

static jint finish_read(JNIEnv *env, ssize_t n, int err, const char *call, int fd)
{
	if (n > 0)
		return (jint)n;
	if (n == 0)
		return SDP4J_EOF;
	if (would_block(err))
		return SDP4J_UNAVAILABLE;
	throw_data_errno(env, err, call, fd);
	return SDP4J_THROWN;
}

static jint finish_write(JNIEnv *env, ssize_t n, int err, const char *call, int fd)
{
	if (n >= 0)
		return (jint)n;
	if (would_block(err))
		return SDP4J_UNAVAILABLE;
	throw_data_errno(env, err == EPIPE ? ECONNRESET : err, call, fd);
	return SDP4J_THROWN;
}

static int check_array(JNIEnv *env, const char *call, jbyteArray b, jint off, jint len)
{
	if (!b) {
		sdp4j_throw(env, SDP4J_NPE, "%s: buffer is null", call);
		return -1;
	}
	return sdp4j_check_range(env, call, off, len, (*env)->GetArrayLength(env, b));
}

static void *direct_addr(JNIEnv *env, const char *call, jobject buf, jint pos, jint len)
{
	void *p;
	jlong cap;

	if (!buf) {
		sdp4j_throw(env, SDP4J_NPE, "%s: buffer is null", call);
		return NULL;
	}
	p = (*env)->GetDirectBufferAddress(env, buf);
	cap = (*env)->GetDirectBufferCapacity(env, buf);
	if (!p || cap < 0) {
		sdp4j_throw(env, SDP4J_IAE, "%s: not a direct buffer", call);
		return NULL;
	}
	if (sdp4j_check_range(env, call, pos, len, cap > 0x7fffffff ? 0x7fffffff : (jint)cap))
		return NULL;
	return (char *)p + pos;
}

/* n > 0 bytes read, SDP4J_EOF, or SDP4J_UNAVAILABLE (nothing yet: rpoll for POLLIN). */
JNIEXPORT jint JFN(read)(JNIEnv *env, jclass cls, jint fd, jbyteArray b, jint off, jint len)
{
	struct sdp4j_rsl *l;
	jbyte *p;
	ssize_t n;
	int err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rrecv", fd, FDM(FD_CONNECTED)) ||
	    check_array(env, "rrecv", b, off, len))
		return SDP4J_THROWN;
	if (!len)
		return 0;
	if (!(l = lock_rs(env, "rrecv", fd)))
		return SDP4J_THROWN;
	p = (*env)->GetPrimitiveArrayCritical(env, b, NULL); /* after the lock: no wait inside the region */
	if (!p) {
		sdp4j_rs_unlock(l);
		return SDP4J_THROWN;
	}
	n = R.rrecv(fd, p + off, (size_t)len, MSG_DONTWAIT);
	err = errno;
	(*env)->ReleasePrimitiveArrayCritical(env, b, p, n > 0 ? 0 : JNI_ABORT);
	sdp4j_rs_unlock(l);
	return finish_read(env, n, err, "rrecv", fd);
}

JNIEXPORT jint JFN(readDirect)(JNIEnv *env, jclass cls, jint fd, jobject buf, jint pos, jint len)
{
	struct sdp4j_rsl *l;
	void *p;
	ssize_t n;
	int err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rrecv", fd, FDM(FD_CONNECTED)))
		return SDP4J_THROWN;
	p = direct_addr(env, "rrecv", buf, pos, len);
	if (!p)
		return SDP4J_THROWN;
	if (!len)
		return 0;
	if (!(l = lock_rs(env, "rrecv", fd)))
		return SDP4J_THROWN;
	n = R.rrecv(fd, p, (size_t)len, MSG_DONTWAIT);
	err = errno;
	sdp4j_rs_unlock(l);
	return finish_read(env, n, err, "rrecv", fd);
}

/* n >= 0 bytes sent (a prefix), or SDP4J_UNAVAILABLE (no credits/buffer: rpoll for POLLOUT). */
JNIEXPORT jint JFN(write)(JNIEnv *env, jclass cls, jint fd, jbyteArray b, jint off, jint len)
{
	struct sdp4j_rsl *l;
	jbyte *p;
	ssize_t n;
	int err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rsend", fd, FDM(FD_CONNECTED)) ||
	    check_array(env, "rsend", b, off, len))
		return SDP4J_THROWN;
	if (!len)
		return 0;
	if (!(l = lock_rs(env, "rsend", fd)))
		return SDP4J_THROWN;
	p = (*env)->GetPrimitiveArrayCritical(env, b, NULL); /* after the lock: no wait inside the region */
	if (!p) {
		sdp4j_rs_unlock(l);
		return SDP4J_THROWN;
	}
	n = R.rsend(fd, p + off, (size_t)len, MSG_DONTWAIT);
	err = errno;
	(*env)->ReleasePrimitiveArrayCritical(env, b, p, JNI_ABORT);
	sdp4j_rs_unlock(l);
	return finish_write(env, n, err, "rsend", fd);
}

JNIEXPORT jint JFN(writeDirect)(JNIEnv *env, jclass cls, jint fd, jobject buf, jint pos, jint len)
{
	struct sdp4j_rsl *l;
	void *p;
	ssize_t n;
	int err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rsend", fd, FDM(FD_CONNECTED)))
		return SDP4J_THROWN;
	p = direct_addr(env, "rsend", buf, pos, len);
	if (!p)
		return SDP4J_THROWN;
	if (!len)
		return 0;
	if (!(l = lock_rs(env, "rsend", fd)))
		return SDP4J_THROWN;
	n = R.rsend(fd, p, (size_t)len, MSG_DONTWAIT);
	err = errno;
	sdp4j_rs_unlock(l);
	return finish_write(env, n, err, "rsend", fd);
}

/* rsockets has no FIONREAD: peek (non-blocking) into a scratch buffer. The count is exact up to its size and a
 * lower bound beyond, which is what InputStream.available() promises; the copy is proportional to what is
 * already received and is paid only by callers of available(), never by reads. */
#define PEEK_MAX 16384
JNIEXPORT jint JFN(available)(JNIEnv *env, jclass cls, jint fd)
{
	char scratch[PEEK_MAX];
	struct sdp4j_rsl *l;
	ssize_t n;
	int err;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rrecv MSG_PEEK", fd, FDM(FD_CONNECTED)))
		return SDP4J_THROWN;
	if (!(l = lock_rs(env, "rrecv MSG_PEEK", fd)))
		return SDP4J_THROWN;
	n = R.rrecv(fd, scratch, sizeof scratch, MSG_PEEK | MSG_DONTWAIT);
	err = errno;
	sdp4j_rs_unlock(l);
	if (n >= 0)
		return (jint)n;
	if (would_block(err))
		return 0;
	throw_data_errno(env, err, "rrecv MSG_PEEK", fd);
	return SDP4J_THROWN;
}

/* ---- options ---- */

/* Option ids shared with Native.java (OPT_*): kept independent of the platform's constants. */
enum { OPT_TCP_NODELAY = 1, OPT_SO_SNDBUF, OPT_SO_RCVBUF, OPT_SO_KEEPALIVE, OPT_SO_REUSEADDR, OPT_SO_LINGER,
       OPT_SO_OOBINLINE, OPT_TCP_KEEPIDLE, OPT_RDMA_SQSIZE, OPT_RDMA_RQSIZE, OPT_RDMA_INLINE, OPT_RDMA_IOMAPSIZE,
       OPT_IPV6_V6ONLY };

static int opt_map(jint opt, int *level, int *name, const char **label)
{
	static const struct { int level, name; const char *label; } m[] = {
		[OPT_TCP_NODELAY] = { IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY" },
		[OPT_SO_SNDBUF] = { SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF" },
		[OPT_SO_RCVBUF] = { SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF" },
		[OPT_SO_KEEPALIVE] = { SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE" },
		[OPT_SO_REUSEADDR] = { SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR" },
		[OPT_SO_LINGER] = { SOL_SOCKET, SO_LINGER, "SO_LINGER" },
		[OPT_SO_OOBINLINE] = { SOL_SOCKET, SO_OOBINLINE, "SO_OOBINLINE" },
		[OPT_TCP_KEEPIDLE] = { IPPROTO_TCP, TCP_KEEPIDLE, "TCP_KEEPIDLE" },
		[OPT_RDMA_SQSIZE] = { SOL_RDMA, RDMA_SQSIZE, "RDMA_SQSIZE" },
		[OPT_RDMA_RQSIZE] = { SOL_RDMA, RDMA_RQSIZE, "RDMA_RQSIZE" },
		[OPT_RDMA_INLINE] = { SOL_RDMA, RDMA_INLINE, "RDMA_INLINE" },
		[OPT_RDMA_IOMAPSIZE] = { SOL_RDMA, RDMA_IOMAPSIZE, "RDMA_IOMAPSIZE" },
		[OPT_IPV6_V6ONLY] = { IPPROTO_IPV6, IPV6_V6ONLY, "IPV6_V6ONLY" },
	};

	if (opt <= 0 || opt >= (jint)(sizeof m / sizeof m[0]))
		return -1;
	*level = m[opt].level;
	*name = m[opt].name;
	*label = m[opt].label;
	return 0;
}

/* SO_LINGER: value < 0 turns it off, >= 0 on (rsockets keeps on/off only). */
JNIEXPORT void JFN(setOption)(JNIEnv *env, jclass cls, jint fd, jint opt, jint value)
{
	int level, name, v = value, ret, err;
	const char *label;
	struct sdp4j_rsl *l;
	struct linger lg;
	char call[48];
	const void *p = &v;
	socklen_t len = sizeof v;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rsetsockopt", fd, FDM_RSOCKET))
		return;
	if (opt_map(opt, &level, &name, &label)) {
		sdp4j_throw(env, SDP4J_IAE, "rsetsockopt fd %d: unknown option id %d", (int)fd, (int)opt);
		return;
	}
	if (name == SO_LINGER && level == SOL_SOCKET) {
		lg.l_onoff = value >= 0;
		lg.l_linger = value >= 0 ? value : 0;
		p = &lg;
		len = sizeof lg;
	}
	snprintf(call, sizeof call, "rsetsockopt %s", label);
	if (!(l = lock_rs(env, call, fd)))
		return;
	ret = R.rsetsockopt(fd, level, name, p, len);
	err = errno;
	sdp4j_rs_unlock(l);
	if (ret)
		sdp4j_throw_errno(env, err, call, NULL, fd);
}

JNIEXPORT jint JFN(getOption)(JNIEnv *env, jclass cls, jint fd, jint opt)
{
	int level, name, v = 0, ret, err;
	const char *label;
	struct sdp4j_rsl *l;
	struct linger lg;
	char call[48];
	socklen_t len;

	(void)cls;
	if (sdp4j_need_rdmacm(env) || sdp4j_check_fd(env, "rgetsockopt", fd, FDM_RSOCKET))
		return -1;
	if (opt_map(opt, &level, &name, &label)) {
		sdp4j_throw(env, SDP4J_IAE, "rgetsockopt fd %d: unknown option id %d", (int)fd, (int)opt);
		return -1;
	}
	snprintf(call, sizeof call, "rgetsockopt %s", label);
	if (!(l = lock_rs(env, call, fd)))
		return -1;
	if (name == SO_LINGER && level == SOL_SOCKET) {
		memset(&lg, 0, sizeof lg);
		len = sizeof lg;
		ret = R.rgetsockopt(fd, level, name, &lg, &len);
		v = lg.l_onoff ? lg.l_linger : -1;
	} else {
		len = sizeof v;
		ret = R.rgetsockopt(fd, level, name, &v, &len);
	}
	err = errno;
	sdp4j_rs_unlock(l);
	if (ret) {
		sdp4j_throw_errno(env, err, call, NULL, fd);
		return -1;
	}
	return v;
}
