/* TEST ONLY: a JNIEnv without a JVM, implementing just the JNI functions libsdp4j uses, so the entry points run
 * under AddressSanitizer/UBSan and valgrind (a JVM under either is slow and noisy). Every other function pointer
 * is NULL: calling one crashes the test, which is the point. Arrays and buffers are plain C objects; critical
 * regions hand out copies, so a wrong release mode or a missing release shows up as a wrong value or a leak. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_jni.h"

struct fobj {
	int kind;   /* 'B' byte[], 'I' int[], 'S' short[], 'D' direct buffer, 'H' heap buffer, 's' string, 'c' class */
	jsize len;  /* elements, or capacity */
	void *data; /* elements, buffer memory or the UTF-8 string */
};

char fj_exc_class[128];
char fj_exc_msg[512];
int fj_pending;
int fj_outstanding; /* critical regions and element copies not yet released */

static struct fobj *O(jobject o) { return (struct fobj *)o; }

static size_t esize(int kind) { return kind == 'I' ? 4 : kind == 'S' ? 2 : 1; }

static jobject mk(int kind, jsize len, const void *init, size_t bytes)
{
	struct fobj *o = calloc(1, sizeof *o);

	o->kind = kind;
	o->len = len;
	o->data = calloc(1, bytes ? bytes : 1);
	if (init)
		memcpy(o->data, init, bytes);
	return (jobject)o;
}

jbyteArray fj_bytes(jsize len, const void *init) { return (jbyteArray)mk('B', len, init, (size_t)len); }
jintArray fj_ints(jsize len, const jint *init) { return (jintArray)mk('I', len, init, (size_t)len * 4); }
jshortArray fj_shorts(jsize len, const jshort *init) { return (jshortArray)mk('S', len, init, (size_t)len * 2); }
jobject fj_direct(jsize cap) { return mk('D', cap, NULL, (size_t)cap); }
jobject fj_heapbuf(jsize cap) { return mk('H', cap, NULL, (size_t)cap); }
jstring fj_string(const char *s) { return (jstring)mk('s', (jsize)strlen(s), s, strlen(s) + 1); }
void *fj_data(jobject o) { return O(o)->data; }
jsize fj_len(jobject o) { return O(o)->len; }

void fj_free(jobject o)
{
	if (!o)
		return;
	free(O(o)->data);
	free(O(o));
}

void fj_clear(void)
{
	fj_pending = 0;
	fj_exc_class[0] = fj_exc_msg[0] = '\0';
}

static void throw_(const char *cls, const char *msg)
{
	if (fj_pending) {
		fprintf(stderr, "fake_jni: %s thrown while %s is pending\n", cls, fj_exc_class);
		abort();
	}
	fj_pending = 1;
	snprintf(fj_exc_class, sizeof fj_exc_class, "%s", cls);
	snprintf(fj_exc_msg, sizeof fj_exc_msg, "%s", msg ? msg : "");
}

static int must_not_pend(const char *fn)
{
	if (fj_pending) {
		fprintf(stderr, "fake_jni: %s called with %s pending (not allowed by JNI)\n", fn, fj_exc_class);
		abort();
	}
	return 0;
}

static jclass JNICALL FindClass(JNIEnv *e, const char *name)
{
	(void)e;
	must_not_pend("FindClass");
	return (jclass)mk('c', 0, name, strlen(name) + 1);
}

static jint JNICALL ThrowNew(JNIEnv *e, jclass c, const char *msg)
{
	(void)e;
	throw_((const char *)O(c)->data, msg);
	fj_free(c); /* FindClass' local reference, kept no longer in this fake */
	return 0;
}

static jboolean JNICALL ExceptionCheck(JNIEnv *e) { (void)e; return fj_pending ? JNI_TRUE : JNI_FALSE; }

static jsize JNICALL GetArrayLength(JNIEnv *e, jarray a) { (void)e; must_not_pend("GetArrayLength"); return O(a)->len; }

static void JNICALL GetByteArrayRegion(JNIEnv *e, jbyteArray a, jsize start, jsize len, jbyte *buf)
{
	(void)e;
	must_not_pend("GetByteArrayRegion");
	if (start < 0 || len < 0 || start > O(a)->len - len) {
		throw_("java/lang/ArrayIndexOutOfBoundsException", "GetByteArrayRegion");
		return;
	}
	memcpy(buf, (char *)O(a)->data + start, (size_t)len);
}

static void JNICALL SetByteArrayRegion(JNIEnv *e, jbyteArray a, jsize start, jsize len, const jbyte *buf)
{
	(void)e;
	must_not_pend("SetByteArrayRegion");
	if (start < 0 || len < 0 || start > O(a)->len - len) {
		throw_("java/lang/ArrayIndexOutOfBoundsException", "SetByteArrayRegion");
		return;
	}
	memcpy((char *)O(a)->data + start, buf, (size_t)len);
}

static jbyteArray JNICALL NewByteArray(JNIEnv *e, jsize len) { (void)e; must_not_pend("NewByteArray"); return fj_bytes(len, NULL); }

static void JNICALL GetIntArrayRegion(JNIEnv *e, jintArray a, jsize start, jsize len, jint *buf)
{
	(void)e;
	must_not_pend("GetIntArrayRegion");
	if (start < 0 || len < 0 || start > O(a)->len - len) {
		throw_("java/lang/ArrayIndexOutOfBoundsException", "GetIntArrayRegion");
		return;
	}
	memcpy(buf, (jint *)O(a)->data + start, (size_t)len * sizeof *buf);
}

static void JNICALL SetIntArrayRegion(JNIEnv *e, jintArray a, jsize start, jsize len, const jint *buf)
{
	(void)e;
	must_not_pend("SetIntArrayRegion");
	if (start < 0 || len < 0 || start > O(a)->len - len) {
		throw_("java/lang/ArrayIndexOutOfBoundsException", "SetIntArrayRegion");
		return;
	}
	memcpy((jint *)O(a)->data + start, buf, (size_t)len * sizeof *buf);
}

static jintArray JNICALL NewIntArray(JNIEnv *e, jsize len) { (void)e; must_not_pend("NewIntArray"); return fj_ints(len, NULL); }

static void *elements(jobject a)
{
	void *copy = malloc((size_t)O(a)->len * esize(O(a)->kind) + 1);

	memcpy(copy, O(a)->data, (size_t)O(a)->len * esize(O(a)->kind));
	fj_outstanding++;
	return copy;
}

static void release(jobject a, void *copy, jint mode)
{
	if (mode != JNI_ABORT)
		memcpy(O(a)->data, copy, (size_t)O(a)->len * esize(O(a)->kind));
	if (mode != JNI_COMMIT) {
		free(copy);
		fj_outstanding--;
	}
}

static void *JNICALL GetPrimitiveArrayCritical(JNIEnv *e, jarray a, jboolean *isCopy)
{
	(void)e;
	must_not_pend("GetPrimitiveArrayCritical");
	if (isCopy)
		*isCopy = JNI_TRUE;
	return elements(a);
}

static void JNICALL ReleasePrimitiveArrayCritical(JNIEnv *e, jarray a, void *p, jint mode) { (void)e; release(a, p, mode); }

static jint *JNICALL GetIntArrayElements(JNIEnv *e, jintArray a, jboolean *c) { (void)e; (void)c; must_not_pend("GetIntArrayElements"); return elements(a); }
static void JNICALL ReleaseIntArrayElements(JNIEnv *e, jintArray a, jint *p, jint m) { (void)e; release(a, p, m); }
static jshort *JNICALL GetShortArrayElements(JNIEnv *e, jshortArray a, jboolean *c) { (void)e; (void)c; must_not_pend("GetShortArrayElements"); return elements(a); }
static void JNICALL ReleaseShortArrayElements(JNIEnv *e, jshortArray a, jshort *p, jint m) { (void)e; release(a, p, m); }

static void *JNICALL GetDirectBufferAddress(JNIEnv *e, jobject b) { (void)e; return O(b)->kind == 'D' ? O(b)->data : NULL; }
static jlong JNICALL GetDirectBufferCapacity(JNIEnv *e, jobject b) { (void)e; return O(b)->kind == 'D' ? O(b)->len : -1; }

static const char *JNICALL GetStringUTFChars(JNIEnv *e, jstring s, jboolean *c)
{
	(void)e;
	(void)c;
	must_not_pend("GetStringUTFChars");
	fj_outstanding++;
	return strdup((const char *)O(s)->data);
}

static void JNICALL ReleaseStringUTFChars(JNIEnv *e, jstring s, const char *p) { (void)e; (void)s; free((void *)p); fj_outstanding--; }

static jstring JNICALL NewStringUTF(JNIEnv *e, const char *s) { (void)e; must_not_pend("NewStringUTF"); return fj_string(s); }

static struct JNINativeInterface_ table;
static const struct JNINativeInterface_ *table_ptr = &table;

JNIEnv *fj_env(void)
{
	table.FindClass = FindClass;
	table.ThrowNew = ThrowNew;
	table.ExceptionCheck = ExceptionCheck;
	table.GetArrayLength = GetArrayLength;
	table.GetByteArrayRegion = GetByteArrayRegion;
	table.SetByteArrayRegion = SetByteArrayRegion;
	table.NewByteArray = NewByteArray;
	table.SetIntArrayRegion = SetIntArrayRegion;
	table.GetIntArrayRegion = GetIntArrayRegion;
	table.NewIntArray = NewIntArray;
	table.GetPrimitiveArrayCritical = GetPrimitiveArrayCritical;
	table.ReleasePrimitiveArrayCritical = ReleasePrimitiveArrayCritical;
	table.GetIntArrayElements = GetIntArrayElements;
	table.ReleaseIntArrayElements = ReleaseIntArrayElements;
	table.GetShortArrayElements = GetShortArrayElements;
	table.ReleaseShortArrayElements = ReleaseShortArrayElements;
	table.GetDirectBufferAddress = GetDirectBufferAddress;
	table.GetDirectBufferCapacity = GetDirectBufferCapacity;
	table.GetStringUTFChars = GetStringUTFChars;
	table.ReleaseStringUTFChars = ReleaseStringUTFChars;
	table.NewStringUTF = NewStringUTF;
	return (JNIEnv *)&table_ptr;
}
