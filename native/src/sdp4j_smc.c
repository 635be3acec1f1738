/* Linux SMC (shared memory communications over RDMA) for `use smc` rules: the JDK's own TCP socket becomes an SMC
 * socket before connect or bind, as the JDK's SdpSupport.convertSocket once made it an SDP socket: a new SMC
 * socket of the same family, the options the JDK set at creation copied, dup2 over the JDK's descriptor. Everything
 * above the descriptor stays the JDK's. The kernel does the rest, the fallback to TCP included; smc_diag tells
 * afterwards which it was. No state here: every call stands alone. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>

#include "sdp4j.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256 /* Linux 6.11+: socket(AF_INET[6], SOCK_STREAM, IPPROTO_SMC) */
#endif
#ifndef SMCPROTO_SMC
#define SMCPROTO_SMC 0  /* AF_SMC, IPv4 */
#define SMCPROTO_SMC6 1 /* AF_SMC, IPv6 */
#endif
#ifndef SOL_SMC
#define SOL_SMC 286
#endif

#define JFN(name) JNICALL Java_org_sdp4j_smc_SmcNative_##name

/* How SMC sockets are made here: IPPROTO_SMC where the kernel has it (same family as the JDK's socket), else
 * AF_SMC with SMCPROTO_SMC/SMCPROTO_SMC6. */
enum { SMC_NONE, SMC_IPPROTO, SMC_AF };

static int smc_socket(int how, int family)
{
	if (how == SMC_IPPROTO)
		return socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_SMC);
	return socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, family == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
}

/* SmcNative.probe: SMC_IPPROTO or SMC_AF; throws a SocketException naming both errors when neither works. */
JNIEXPORT jint JFN(probe)(JNIEnv *env, jclass cls)
{
	int s, e1, e2;

	(void)cls;
	s = smc_socket(SMC_IPPROTO, AF_INET);
	if (s >= 0) {
		close(s);
		return SMC_IPPROTO;
	}
	e1 = errno;
	s = smc_socket(SMC_AF, AF_INET);
	if (s >= 0) {
		close(s);
		return SMC_AF;
	}
	e2 = errno;
	sdp4j_throw(env, SDP4J_SOCKX, "the kernel has no SMC: socket(AF_INET, SOCK_STREAM, IPPROTO_SMC): %s; "
		    "socket(AF_SMC, SOCK_STREAM, 0): %s%s", strerror(e1), strerror(e2),
		    e2 == EAFNOSUPPORT ? " (no smc module: modprobe smc, Linux 4.11+)" : "");
	return SMC_NONE;
}

static void copy_opt(int from, int to, int level, int name)
{
	int v = 0;
	socklen_t len = sizeof v;

	if (getsockopt(from, level, name, &v, &len) == 0 && v)
		(void)setsockopt(to, level, name, &v, len);
}

/* SmcNative.convert(fd, how): fd must be an unbound, unconnected TCP socket of AF_INET or AF_INET6 (the JDK's just
 * created); it becomes an SMC socket of the same family with the same file status flags and creation options. */
JNIEXPORT void JFN(convert)(JNIEnv *env, jclass cls, jint fd, jint how)
{
	struct stat st;
	struct sockaddr_storage ss;
	socklen_t len;
	int family = 0, type = 0, proto = 0, flags, s, r;

	(void)cls;
	if (how != SMC_IPPROTO && how != SMC_AF) {
		sdp4j_throw(env, SDP4J_IAE, "smc convert: bad method %d", (int)how);
		return;
	}
	if (fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode)) {
		sdp4j_throw(env, SDP4J_IAE, "smc convert: fd %d is not a socket", (int)fd);
		return;
	}
	len = sizeof family;
	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &len);
	len = sizeof type;
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
	len = sizeof proto;
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len);
	if ((family != AF_INET && family != AF_INET6) || type != SOCK_STREAM || proto != IPPROTO_TCP) {
		sdp4j_throw(env, SDP4J_IAE, "smc convert: fd %d is not a TCP socket (domain %d, type %d, protocol %d)",
			    (int)fd, family, type, proto);
		return;
	}
	len = sizeof ss;
	memset(&ss, 0, sizeof ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
	    ((family == AF_INET && ((struct sockaddr_in *)&ss)->sin_port) ||
	     (family == AF_INET6 && ((struct sockaddr_in6 *)&ss)->sin6_port))) {
		sdp4j_throw(env, SDP4J_IAE, "smc convert: fd %d is already bound", (int)fd);
		return;
	}
	len = sizeof ss;
	if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0 || errno != ENOTCONN) {
		sdp4j_throw(env, SDP4J_IAE, "smc convert: fd %d is connected or connecting", (int)fd);
		return;
	}
	flags = fcntl(fd, F_GETFL);
	s = smc_socket(how, family);
	if (s < 0) {
		sdp4j_throw_errno(env, errno, how == SMC_IPPROTO ? "socket(IPPROTO_SMC)" : "socket(AF_SMC)", NULL, -1);
		return;
	}
	/* what the JDK sets when it creates a socket (a listener's SO_REUSEADDR, IPV6_V6ONLY off); options the
	 * application sets later reach the SMC socket itself (SOL_SOCKET and IPPROTO_TCP pass to its TCP socket) */
	copy_opt(fd, s, SOL_SOCKET, SO_REUSEADDR);
	copy_opt(fd, s, SOL_SOCKET, SO_REUSEPORT);
	copy_opt(fd, s, SOL_SOCKET, SO_KEEPALIVE);
	copy_opt(fd, s, SOL_SOCKET, SO_OOBINLINE);
	copy_opt(fd, s, IPPROTO_TCP, TCP_NODELAY);
	if (family == AF_INET6) {
		int v = 0;

		len = sizeof v;
		if (getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v, &len) == 0)
			(void)setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v, len);
	}
	if (flags >= 0 && (flags & O_NONBLOCK))
		(void)fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
	do {
		r = dup2(s, fd); /* keeps fd's FD_CLOEXEC off, as the JDK's descriptors have it */
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		sdp4j_throw_errno(env, errno, "dup2", NULL, fd);
	close(s);
}

/* SmcNative.isSmc(fd): whether fd is an SMC socket (either kind). */
JNIEXPORT jboolean JFN(isSmc)(JNIEnv *env, jclass cls, jint fd)
{
	int family = 0, proto = 0;
	socklen_t len = sizeof family;

	(void)env;
	(void)cls;
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &len))
		return JNI_FALSE;
	if (family == AF_SMC)
		return JNI_TRUE;
	len = sizeof proto;
	return !getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) && proto == IPPROTO_SMC;
}

/* One smc_diag dump, looking for the socket with inode ino: fills out[0..2] = mode (SMC_DIAG_MODE_*), fallback
 * reason, peer's diagnosis. 0 when found, 1 when not, -1 with errno. Every wait bounded (1 s per receive). */
static int diag_lookup(unsigned long long ino, jint out[3])
{
	struct {
		struct nlmsghdr nlh;
		struct smc_diag_req r;
	} req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	struct timeval tv = { 1, 0 };
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	int s, found = 1, done = 0;

	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	memset(&req, 0, sizeof req);
	req.nlh.nlmsg_len = sizeof req;
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = 1;
	req.r.diag_family = AF_SMC;
	req.r.diag_ext = 1 << (SMC_DIAG_FALLBACK - 1);
	if (sendto(s, &req, sizeof req, 0, (struct sockaddr *)&nl, sizeof nl) < 0)
		goto fail;
	while (!done) {
		ssize_t n = recv(s, buf, sizeof buf, 0);
		struct nlmsghdr *h;

		if (n < 0)
			goto fail;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			struct smc_diag_msg *m;
			struct rtattr *a;
			int alen;

			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				errno = h->nlmsg_len >= NLMSG_LENGTH(sizeof *e) && e->error ? -e->error : EPROTO;
				goto fail;
			}
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof *m))
				continue;
			m = NLMSG_DATA(h);
			if (m->diag_inode != ino || !found)
				continue;
			found = 0;
			out[0] = m->diag_mode;
			out[1] = out[2] = 0;
			alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				if (a->rta_type == SMC_DIAG_FALLBACK &&
				    RTA_PAYLOAD(a) >= (int)sizeof(struct smc_diag_fallback)) {
					struct smc_diag_fallback f;

					memcpy(&f, RTA_DATA(a), sizeof f);
					out[1] = (jint)f.reason;
					out[2] = (jint)f.peer_diagnosis;
				}
			}
		}
	}
	close(s);
	return found;
fail:
	done = errno;
	close(s);
	errno = done;
	return -1;
}

/* SmcNative.diag(fd): [mode, fallback reason, peer diagnosis] of SMC socket fd, or null when smc_diag does not
 * list it (not an SMC socket, or closed); throws when smc_diag cannot be asked (no smc_diag module). */
JNIEXPORT jintArray JFN(diag)(JNIEnv *env, jclass cls, jint fd)
{
	struct stat st;
	jint v[3];
	jintArray a;
	int r;

	(void)cls;
	if (fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode)) {
		sdp4j_throw(env, SDP4J_IAE, "smc diag: fd %d is not a socket", (int)fd);
		return NULL;
	}
	r = diag_lookup((unsigned long long)st.st_ino, v);
	if (r < 0) {
		sdp4j_throw_errno(env, errno, "smc_diag", NULL, fd);
		return NULL;
	}
	if (r > 0)
		return NULL;
	a = (*env)->NewIntArray(env, 3);
	if (a)
		(*env)->SetIntArrayRegion(env, a, 0, 3, v);
	return a;
}

/* One generic-netlink request on s (bounded receives); calls each(attrs, len, arg) for every reply message's
 * attributes. 0, or -1 with errno (the kernel's error included). */
static int genl_call(int s, int family, int cmd, int flags, const void *attr, int alen,
		     void (*each)(struct nlattr *, int, void *), void *arg)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr g;
		char attrs[64];
	} req;

	if (alen < 0 || alen > (int)sizeof req.attrs) {
		errno = EINVAL;
		return -1;
	}
	memset(&req, 0, sizeof req);
	req.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + alen);
	req.nlh.nlmsg_type = (unsigned short)family;
	req.nlh.nlmsg_flags = (unsigned short)(NLM_F_REQUEST | flags);
	req.nlh.nlmsg_seq = 1;
	req.g.cmd = (unsigned char)cmd;
	req.g.version = 1;
	if (alen)
		memcpy(req.attrs, attr, (size_t)alen);
	return sdp4j_nl_call(s, &req.nlh, GENL_HDRLEN, each, arg);
}

static void family_id(struct nlattr *attrs, int len, void *arg)
{
	struct nlattr *a;

	NLA_FOR_EACH(a, attrs, len)
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID && a->nla_len >= NLA_HDRLEN + 2)
			memcpy(arg, (char *)a + NLA_HDRLEN, 2);
}

struct eids {
	char text[4 * (SMC_MAX_EID_LEN + 2) + 1];
	int n;
};

static void ueid(struct nlattr *attrs, int len, void *arg)
{
	struct eids *e = arg;
	struct nlattr *a;

	NLA_FOR_EACH(a, attrs, len) {
		int l = a->nla_len - NLA_HDRLEN, i;
		const char *v = (const char *)a + NLA_HDRLEN;
		size_t at = strlen(e->text);

		if ((a->nla_type & NLA_TYPE_MASK) != SMC_NLA_EID_TABLE_ENTRY || e->n >= 4)
			continue;
		while (l > 0 && (v[l - 1] == '\0' || v[l - 1] == ' '))
			l--;
		if (l > SMC_MAX_EID_LEN)
			l = SMC_MAX_EID_LEN;
		if (e->n++)
			e->text[at++] = ' ';
		for (i = 0; i < l; i++) /* printable ASCII only: the kernel's table, still shown as text */
			e->text[at++] = v[i] > ' ' && v[i] < 127 ? v[i] : '?';
		e->text[at] = '\0';
	}
}

/* SmcNative.ueids: the kernel's SMC User EIDs, blank-separated ("" when none); throws naming the error when the
 * table cannot be read (no smc module: no SMC_GEN_NETLINK family). */
JNIEXPORT jstring JFN(ueids)(JNIEnv *env, jclass cls)
{
	static const char name[] = SMC_GENL_FAMILY_NAME;
	char attr[NLA_HDRLEN + NLA_ALIGN(sizeof name)];
	struct nlattr *a = (struct nlattr *)attr;
	struct timeval tv = { 1, 0 };
	struct eids e = { "", 0 };
	unsigned short fam = 0;
	int s, r, err;

	(void)cls;
	memset(attr, 0, sizeof attr);
	a->nla_len = (unsigned short)(NLA_HDRLEN + sizeof name);
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	memcpy(attr + NLA_HDRLEN, name, sizeof name);
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s < 0) {
		sdp4j_throw_errno(env, errno, "socket(NETLINK_GENERIC)", NULL, -1);
		return NULL;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	r = genl_call(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, attr, (int)sizeof attr, family_id, &fam);
	if (!r && !fam) {
		errno = ENOENT;
		r = -1;
	}
	if (!r)
		r = genl_call(s, fam, SMC_NETLINK_DUMP_UEID, NLM_F_DUMP, NULL, 0, ueid, &e);
	err = errno;
	close(s);
	if (r) {
		sdp4j_throw(env, SDP4J_SOCKX, "reading the SMC User EIDs (SMC_GEN_NETLINK): %s%s", strerror(err),
			    err == ENOENT ? " (no such family: the smc module is not loaded)" : "");
		return NULL;
	}
	return (*env)->NewStringUTF(env, e.text);
}
