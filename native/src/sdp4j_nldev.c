/* The RDMA devices the kernel has registered, read over RDMA netlink (NETLINK_RDMA, the nldev client) as
 * `rdma link show` reads them: each device with the netdevs of its ports. Why not sysfs: while a device is being
 * removed (`rdma link delete`, a driver unloaded), the kernel takes it out of this list at once, but sysfs keeps
 * it, its ports ACTIVE, until every process using it lets go; and rsockets ignores RDMA_CM_EVENT_DEVICE_REMOVAL.
 * So this list is how an rsocket user learns that its device is going (RdmaDeviceWatch). No state: each call
 * opens, dumps and closes its own netlink socket, every receive bounded by a 1 s timeout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "sdp4j.h"

#define JFN(name) JNICALL Java_org_sdp4j_rsocket_Native_##name

enum { MAX_DEVS = 64, NAME_MAX_LEN = 64 };

struct dev {
	unsigned int index;
	char name[NAME_MAX_LEN];
};

struct devs {
	struct dev d[MAX_DEVS];
	int n;
};

struct links {
	char text[MAX_DEVS * 8 * NAME_MAX_LEN];
	size_t len;
	int full;
};

/* The string value of attribute a, copied into out (NUL-terminated, at most NAME_MAX_LEN - 1 bytes, printable
 * ASCII only: kernel names, shown as text); 0, or -1 when a holds no string. */
static int nla_name(const struct nlattr *a, char *out)
{
	int l = a->nla_len - NLA_HDRLEN, i;
	const char *v = (const char *)a + NLA_HDRLEN;

	while (l > 0 && v[l - 1] == '\0')
		l--;
	if (l <= 0)
		return -1;
	if (l > NAME_MAX_LEN - 1)
		l = NAME_MAX_LEN - 1;
	for (i = 0; i < l; i++)
		out[i] = v[i] > ' ' && v[i] < 127 ? v[i] : '?';
	out[l] = '\0';
	return 0;
}

static void each_dev(struct nlattr *attrs, int len, void *arg)
{
	struct devs *ds = arg;
	struct dev d = { 0, "" };
	struct nlattr *a;
	int have = 0;

	NLA_FOR_EACH(a, attrs, len) {
		int t = a->nla_type & NLA_TYPE_MASK;

		if (t == RDMA_NLDEV_ATTR_DEV_INDEX && a->nla_len >= NLA_HDRLEN + 4) {
			memcpy(&d.index, (char *)a + NLA_HDRLEN, 4);
			have |= 1;
		} else if (t == RDMA_NLDEV_ATTR_DEV_NAME && !nla_name(a, d.name)) {
			have |= 2;
		}
	}
	if (have == 3 && ds->n < MAX_DEVS)
		ds->d[ds->n++] = d;
}

static void add(struct links *l, const char *s)
{
	size_t n = strlen(s);

	if (l->len + n + 1 >= sizeof l->text) {
		l->full = 1;
		return;
	}
	memcpy(l->text + l->len, s, n + 1);
	l->len += n;
}

static void each_port(struct nlattr *attrs, int len, void *arg)
{
	struct links *l = arg;
	struct nlattr *a;
	char ndev[NAME_MAX_LEN];

	NLA_FOR_EACH(a, attrs, len)
		if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_NDEV_NAME && !nla_name(a, ndev)) {
			add(l, " ");
			add(l, ndev);
		}
}

/* One nldev dump (cmd; for a port dump, of device dev_index) on s; calls each(attrs, len, arg) per reply message.
 * 0, or -1 with errno (the kernel's error included). */
static int nldev_dump(int s, int cmd, const unsigned int *dev_index, void (*each)(struct nlattr *, int, void *),
		      void *arg)
{
	struct {
		struct nlmsghdr nlh;
		struct nlattr a;
		unsigned int index;
	} req;

	memset(&req, 0, sizeof req);
	req.nlh.nlmsg_len = NLMSG_LENGTH(dev_index ? NLA_HDRLEN + 4 : 0);
	req.nlh.nlmsg_type = (unsigned short)RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = 1;
	if (dev_index) {
		req.a.nla_len = NLA_HDRLEN + 4;
		req.a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
		req.index = *dev_index;
	}
	return sdp4j_nl_call(s, &req.nlh, 0, each, arg);
}

/* Native.rdmaLinks: one line per registered RDMA device, "INDEX NAME NETDEV..." (the kernel's device index, which
 * a rename keeps, then the netdevs of its ports, none for a port without one), e.g. "3 rxe0 eth0\n"; "" when there
 * is none. Throws SocketException naming the error when the
 * list cannot be read (no NETLINK_RDMA: a kernel without RDMA support, or ib_core not loaded). */
JNIEXPORT jstring JFN(rdmaLinks)(JNIEnv *env, jclass cls)
{
	struct {
		struct devs ds;
		struct links l;
	} *w;
	struct timeval tv = { 1, 0 };
	jstring res = NULL;
	int s, i, r, err;

	(void)cls;
	w = calloc(1, sizeof *w);
	if (!w) {
		sdp4j_throw_errno(env, ENOMEM, "reading the RDMA devices (NETLINK_RDMA)", NULL, -1);
		return NULL;
	}
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (s < 0) {
		sdp4j_throw_errno(env, errno, "socket(NETLINK_RDMA)", NULL, -1);
		free(w);
		return NULL;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	r = nldev_dump(s, RDMA_NLDEV_CMD_GET, NULL, each_dev, &w->ds);
	for (i = 0; !r && i < w->ds.n; i++) {
		size_t mark = w->l.len;
		char idx[16];

		snprintf(idx, sizeof idx, "%u ", w->ds.d[i].index);
		add(&w->l, idx);
		add(&w->l, w->ds.d[i].name);
		r = nldev_dump(s, RDMA_NLDEV_CMD_PORT_GET, &w->ds.d[i].index, each_port, &w->l);
		if (r && errno == ENODEV) { /* gone between the two dumps: not listed */
			w->l.len = mark;
			w->l.text[mark] = '\0';
			r = 0;
			continue;
		}
		add(&w->l, "\n");
	}
	err = errno;
	if (!r && w->l.full) {
		r = -1;
		err = EOVERFLOW;
	}
	close(s);
	if (r)
		sdp4j_throw_errno(env, err, "reading the RDMA devices (NETLINK_RDMA)", NULL, -1);
	else
		res = (*env)->NewStringUTF(env, w->l.text);
	free(w);
	return res;
}
