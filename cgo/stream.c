/* stream.c — the ArrowArrayStream hados exports (a task's output).
   private_data is the stream's handle (an integer, checked by Go against
   the live handles), so every callback is safe after release, and release
   itself is idempotent: it runs once, then marks the stream released. */
#include <errno.h>
#include <string.h>

#include "hados.h"

int hdgo_stream_schema(uintptr_t h, struct ArrowSchema *out);
int hdgo_stream_next(uintptr_t h, struct ArrowArray *out);
const char *hdgo_stream_error(uintptr_t h);
void hdgo_stream_release(uintptr_t h);

static int hd_stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  if (!s || !s->release || !out) return EINVAL;
  memset(out, 0, sizeof *out); /* cdata's export wants zeroed memory */
  return hdgo_stream_schema((uintptr_t)s->private_data, out);
}

static int hd_stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  if (!s || !s->release || !out) return EINVAL;
  memset(out, 0, sizeof *out);
  return hdgo_stream_next((uintptr_t)s->private_data, out);
}

static const char *hd_stream_get_last_error(struct ArrowArrayStream *s) {
  if (!s || !s->release) return NULL;
  return hdgo_stream_error((uintptr_t)s->private_data);
}

static void hd_stream_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  uintptr_t h = (uintptr_t)s->private_data;
  s->release = NULL;
  s->private_data = NULL;
  hdgo_stream_release(h);
}

/* hd_stream_init fills *s with hados' callbacks over handle h. */
void hd_stream_init(struct ArrowArrayStream *s, uintptr_t h) {
  s->get_schema = hd_stream_get_schema;
  s->get_next = hd_stream_get_next;
  s->get_last_error = hd_stream_get_last_error;
  s->release = hd_stream_release;
  s->private_data = (void *)h;
}
