/* Who owns the TCP listener on a port: the kernel's socket diagnostics (NETLINK_SOCK_DIAG), asked for listening
 * sockets of that local port only. The ucx transport's client checks this before it sends a byte (PeerCheck.java).
 * /proc/net/tcp6 would do too, but reading it walks every TCP socket of the namespace: 30-150 ms with a few
 * thousand in TIME_WAIT, a stall of every UCX connect that missed PeerCheck's cache. Asked for LISTEN only, the
 * kernel walks its listening table alone, and filters the port itself. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "sdp4j.h"

/* One record per listener: family (4 or 6), the bound address (16 bytes; an IPv4 one in the first 4), the owner's
 * uid (4 bytes, big-endian) and the socket's inode (8 bytes, big-endian). */
#define REC 29
#define MAX_RECS 64

struct found {
	unsigned char out[REC * MAX_RECS];
	int n;
	int port;
};

static void put_be(unsigned char *p, unsigned long long v, int bytes)
{
	int i;

	for (i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void each(struct nlattr *data, int len, void *arg)
{
	const struct inet_diag_msg *m = (const struct inet_diag_msg *)data;
	struct found *f = arg;
	unsigned char *r;

	if (len < (int)sizeof *m || m->idiag_state != TCP_LISTEN || ntohs(m->id.idiag_sport) != f->port
	    || (m->idiag_family != AF_INET && m->idiag_family != AF_INET6) || f->n >= MAX_RECS)
		return;
	r = f->out + REC * f->n++;
	memset(r, 0, REC);
	r[0] = m->idiag_family == AF_INET ? 4 : 6;
	memcpy(r + 1, m->id.idiag_src, m->idiag_family == AF_INET ? 4 : 16);
	put_be(r + 17, m->idiag_uid, 4);
	put_be(r + 21, m->idiag_inode, 8);
}

static int ask(int s, int family, struct found *f)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;

	memset(&req, 0, sizeof req);
	req.nlh.nlmsg_len = sizeof req;
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = (unsigned char)family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = 1U << TCP_LISTEN;
	req.r.id.idiag_sport = htons((unsigned short)f->port);
	return sdp4j_nl_call(s, &req.nlh, 0, each, f);
}

/* The listeners on TCP port `port` (IPv4 first, then IPv6), as records of REC bytes; null when the kernel has no
 * socket diagnostics to ask (the caller reads /proc instead). */
JNIEXPORT jbyteArray JNICALL Java_org_sdp4j_ucp_UcpNative_tcpListeners(JNIEnv *env, jclass cls, jint port)
{
	struct found f = { .port = port }; /* 1.9 KiB */
	jbyteArray a;
	int s, err = 0;

	(void)cls;
	if (port < 1 || port > 65535) {
		sdp4j_throw(env, SDP4J_IAE, "UcpNative.tcpListeners: bad port %d", (int)port);
		return NULL;
	}
	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (s < 0 || ask(s, AF_INET, &f) < 0 || ask(s, AF_INET6, &f) < 0)
		err = 1;
	if (s >= 0)
		close(s);
	if (err)
		return NULL;
	a = (*env)->NewByteArray(env, REC * f.n);
	if (a && f.n)
		(*env)->SetByteArrayRegion(env, a, 0, REC * f.n, (const jbyte *)f.out);
	return a;
}
