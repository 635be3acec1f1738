/* TEST ONLY: see fake_jni.c. */
#ifndef FAKE_JNI_H
#define FAKE_JNI_H
#include <jni.h>

JNIEnv *fj_env(void);
jbyteArray fj_bytes(jsize len, const void *init);
jintArray fj_ints(jsize len, const jint *init);
jshortArray fj_shorts(jsize len, const jshort *init);
jobject fj_direct(jsize cap);
jobject fj_heapbuf(jsize cap);
jstring fj_string(const char *s);
void *fj_data(jobject o);
jsize fj_len(jobject o);
void fj_free(jobject o);
void fj_clear(void);

extern char fj_exc_class[128];
extern char fj_exc_msg[512];
extern int fj_pending;
extern int fj_outstanding;

#endif
