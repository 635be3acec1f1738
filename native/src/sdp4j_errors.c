/* errno -> the Java exception a java.net caller expects, with the call, the place and strerror in the message:
 *   "rconnect 10.9.9.1:50000: Connection refused" (ConnectException). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "sdp4j.h"

void sdp4j_throw(JNIEnv *env, const char *cls, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	jclass c;

	if ((*env)->ExceptionCheck(env))
		return; /* keep the first exception */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c = (*env)->FindClass(env, cls);
	if (c) /* else NoClassDefFoundError is pending */
		(*env)->ThrowNew(env, c, msg);
}

void sdp4j_format_addr(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		snprintf(buf, len, "(address family %d)", sa->sa_family);
	}
}

static const char *exception_for(int err, const char *call)
{
	int is_bind = !strcmp(call, "rbind") || !strcmp(call, "rlisten");

	switch (err) {
	case ECONNREFUSED:
		return "java/net/ConnectException";
	case ETIMEDOUT:
		return "java/net/SocketTimeoutException";
	case EHOSTUNREACH:
	case ENETUNREACH:
		return "java/net/NoRouteToHostException";
	case EADDRINUSE:
	case EACCES:
		return is_bind ? "java/net/BindException" : SDP4J_SOCKX;
	case EADDRNOTAVAIL:
	case ENODEV: /* rdma_cm: no RDMA device owns (or reaches) this address */
		if (is_bind)
			return "java/net/BindException";
		if (!strcmp(call, "rconnect"))
			return "java/net/ConnectException";
		return SDP4J_SOCKX;
	default:
		return SDP4J_SOCKX;
	}
}

/* An rsocket registers its buffers (pinned: RLIMIT_MEMLOCK without CAP_IPC_LOCK) and takes a queue pair, a
 * completion queue and descriptors; when one runs out, librdmacm/verbs say only ENOMEM, EAGAIN or ENOSPC. Name the
 * limits a user can check. */
static const char *limit_hint(int err, char *buf, size_t len)
{
	struct rlimit rl;

	if (err == EMFILE || err == ENFILE) {
		if (getrlimit(RLIMIT_NOFILE, &rl))
			return "";
		snprintf(buf, len, " (open files: RLIMIT_NOFILE %llu; each rsocket takes 3 descriptors)",
			 (unsigned long long)rl.rlim_cur);
		return buf;
	}
	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return "";
	if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, " (an RDMA resource ran out: registered memory (RLIMIT_MEMLOCK unlimited), queue "
			 "pairs or completion queues of the device; see ibv_devinfo -v max_qp/max_cq)");
	else
		snprintf(buf, len, " (an RDMA resource ran out: registered memory, RLIMIT_MEMLOCK %llu KiB (ulimit -l; "
			 "each rsocket pins its send and receive buffers), or the device's queue pairs or completion "
			 "queues: ibv_devinfo -v max_qp/max_cq)", (unsigned long long)rl.rlim_cur / 1024);
	return buf;
}

void sdp4j_throw_errno(JNIEnv *env, int err, const char *call, const struct sockaddr *sa, int fd)
{
	char where[96] = "", limit[256];
	const char *hint = "";

	if (sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)) {
		where[0] = ' ';
		sdp4j_format_addr(sa, where + 1, sizeof where - 1);
	} else if (fd >= 0) {
		snprintf(where, sizeof where, " fd %d", fd);
	}
	if (err == ENODEV && !strcmp(call, "rconnect"))
		hint = " (no RDMA device reaches this address)";
	else if (err == ENODEV && !strcmp(call, "rbind"))
		hint = " (no RDMA device has this address)";
	else if (err == ENOMEM || err == EAGAIN || err == ENOSPC || err == EMFILE || err == ENFILE)
		hint = limit_hint(err, limit, sizeof limit);
	sdp4j_throw(env, exception_for(err, call), "%s%s: %s%s", call, where, strerror(err), hint);
}

int sdp4j_check_range(JNIEnv *env, const char *call, jint off, jint len, jint size)
{
	if (off < 0 || len < 0 || off > size - len) {
		sdp4j_throw(env, SDP4J_IOOBE, "%s: offset %d, length %d out of bounds for length %d",
			    call, (int)off, (int)len, (int)size);
		return -1;
	}
	return 0;
}
