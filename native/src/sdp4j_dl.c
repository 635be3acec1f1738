/* librdmacm at run time: dlopen("librdmacm.so.1") and dlsym of each r* entry point, so that libsdp4j.so loads
 * on any Linux and can say why RDMA is unavailable instead of failing to load. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sdp4j.h"

struct sdp4j_rdmacm R;

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;
static char dl_err[512] = "librdmacm not loaded yet (Native.init was not called)";

/* dlerror() says "NAME: cannot open ..."; the caller names the library already. */
static const char *strip_name(const char *msg, const char *name)
{
	size_t n = strlen(name);

	if (msg && !strncmp(msg, name, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg ? msg : "unknown error";
}

int sdp4j_dl_open(const char *name)
{
	struct sdp4j_rdmacm t;
	void *h, *sym;
	int ret = -1;

	pthread_mutex_lock(&dl_lock);
	if (R.loaded) {
		ret = 0;
		goto out;
	}
	memset(&t, 0, sizeof t);
	dlerror();
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(dl_err, sizeof dl_err, "dlopen %s: %s", name, strip_name(dlerror(), name));
		goto out;
	}
#define SDP4J_SYM(f) \
	dlerror(); \
	sym = dlsym(h, #f); \
	if (!sym) { \
		snprintf(dl_err, sizeof dl_err, "dlsym %s in %s: %s", #f, name, strip_name(dlerror(), name)); \
		dlclose(h); \
		goto out; \
	} \
	memcpy(&t.f, &sym, sizeof sym);
	SDP4J_RDMACM_FUNCS(SDP4J_SYM)
#undef SDP4J_SYM
	/* Never dlclose'd from here on: librdmacm starts threads and keeps global state. */
	t.loaded = 1;
	t.handle = h;
	R = t;
	dl_err[0] = '\0';
	ret = 0;
out:
	pthread_mutex_unlock(&dl_lock);
	return ret;
}

const char *sdp4j_dl_error(void)
{
	return R.loaded ? NULL : dl_err;
}

int sdp4j_need_rdmacm(JNIEnv *env)
{
	if (R.loaded)
		return 0;
	sdp4j_throw(env, SDP4J_SOCKX, "rsockets unavailable: %s", dl_err);
	return -1;
}
