// Output lending: preloaded into a framework worker (LD_PRELOAD), it lets the worker hand its own
// mapping of one of bnscope's output segments to the framework's allocator for one kernel call.
// Both frameworks' grad kernels allocate their outputs themselves, so without it every run ends
// with a copy of x_backprop (103 MB on a 32x56x56x256 float32 layer, 5 ms, half of what oneDNN's
// kernel takes here) out of the framework's buffer into the segment. With a segment lent, one
// allocation of exactly that many bytes is the segment, the kernel writes the output where
// bnscope reads it, and the worker, seeing that from the output's address, copies nothing.
//
// Which allocation of that size is the output depends on the kernel (TensorFlow's is its first;
// PyTorch's channels-last backward allocates a temporary of the same size before it): the
// window records the order of the allocations of each lent size, so that the worker can say
// which one to lend to the next time. Every other allocation goes to glibc unchanged. A lent
// block is never given to glibc; its free only marks it returned. The worker checks that the
// framework let go of every block it was lent.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);

enum { kSlots = 8, kSeen = 32 };
enum SlotState { kFree, kArmed, kClaimed };

typedef struct {
  void* base;
  size_t bytes;
  int skip;  // allocations of this size to leave to glibc before this one is taken
  int state;
} Slot;

typedef struct {
  void* p;
  size_t bytes;
} Seen;

static Slot slots[kSlots];
static Seen seen[kSeen];
static int seen_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
// From bnscope_lend() to bnscope_lend_end(): allocations of a lent size are recorded, and a lent
// block freed is lent again (a temporary of the output's size may take it and free it first).
// Read without the lock on every large allocation (`lending`) and every free (`claimed`, the
// lent blocks held): while they are zero the wrappers are glibc's calls behind one load.
static atomic_int lending;
static atomic_int claimed;

static int lent_size(size_t bytes) {
  for (int i = 0; i < kSlots; ++i)
    if (slots[i].state != kFree && slots[i].bytes == bytes) return 1;
  return 0;
}

// An allocation of `bytes` aligned to `align`: a lent block, or glibc's (malloc when `plain`).
static void* allocate(size_t bytes, size_t align, int plain) {
  if (atomic_load_explicit(&lending, memory_order_acquire) == 0)
    return plain ? __libc_malloc(bytes) : __libc_memalign(align, bytes);
  void* p = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < kSlots && p == NULL; ++i) {
    Slot* s = &slots[i];
    if (s->state != kArmed || s->bytes != bytes || (uintptr_t)s->base % align != 0) continue;
    if (s->skip > 0) {
      --s->skip;
      break;
    }
    s->state = kClaimed;
    atomic_fetch_add(&claimed, 1);
    p = s->base;
  }
  const int record = lent_size(bytes);
  pthread_mutex_unlock(&lock);
  if (p == NULL) p = plain ? __libc_malloc(bytes) : __libc_memalign(align, bytes);
  if (record && p) {
    pthread_mutex_lock(&lock);
    if (seen_count < kSeen) seen[seen_count++] = (Seen){p, bytes};
    pthread_mutex_unlock(&lock);
  }
  return p;
}

// Marks a claimed block returned (`keep`: only looks); its size when `p` was one, else 0.
static size_t give_back(void* p, int keep) {
  if (p == NULL || atomic_load_explicit(&claimed, memory_order_acquire) == 0) return 0;
  size_t bytes = 0;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < kSlots; ++i) {
    Slot* s = &slots[i];
    if (s->state == kClaimed && s->base == p) {
      bytes = s->bytes;
      if (!keep) {
        s->state = atomic_load(&lending) ? kArmed : kFree;
        atomic_fetch_sub(&claimed, 1);
      }
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return bytes;
}

// --- the worker's calls (ctypes) ---

// Lends [base, base + bytes) to the allocation of exactly `bytes` that comes after `skip` others
// of that size. 0, or -1 when every slot is in use.
int bnscope_lend(void* base, size_t bytes, int skip) {
  int done = -1;
  pthread_mutex_lock(&lock);
  if (!atomic_load(&lending)) seen_count = 0;
  for (int i = 0; i < kSlots && done < 0; ++i) {
    if (slots[i].state == kFree) {
      slots[i] = (Slot){base, bytes, skip, kArmed};
      atomic_store(&lending, 1);
      done = 0;
    }
  }
  pthread_mutex_unlock(&lock);
  return done;
}

// Ends the window: blocks no allocation took are lent no more.
void bnscope_lend_end(void) {
  pthread_mutex_lock(&lock);
  atomic_store(&lending, 0);
  for (int i = 0; i < kSlots; ++i)
    if (slots[i].state == kArmed) slots[i].state = kFree;
  pthread_mutex_unlock(&lock);
}

// Which allocation of its size, in the last window, returned `p` (0 the first); -1 if none did.
int bnscope_lend_ordinal(const void* p) {
  int ordinal = -1;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < seen_count && ordinal < 0; ++i) {
    if (seen[i].p != p) continue;
    ordinal = 0;
    for (int j = 0; j < i; ++j) ordinal += seen[j].bytes == seen[i].bytes;
  }
  pthread_mutex_unlock(&lock);
  return ordinal;
}

// How many lent blocks an allocation took and no free returned yet.
int bnscope_lent_held(void) {
  return atomic_load(&claimed);
}

// --- the allocator's entry points ---

// Below this, no output is worth lending, and no lookup is made.
#define LEND_MIN_BYTES ((size_t)1 << 20)

void* malloc(size_t n) {
  return n >= LEND_MIN_BYTES ? allocate(n, 16, 1) : __libc_malloc(n);
}

void free(void* p) {
  if (give_back(p, 0)) return;
  __libc_free(p);
}

void* realloc(void* p, size_t n) {
  const size_t held = give_back(p, 1);
  if (!held) return p == NULL ? malloc(n) : __libc_realloc(p, n);
  // A lent block moves into glibc's memory: the segment goes back untouched.
  void* q = __libc_malloc(n);
  if (q == NULL && n) return NULL;  // the old block stays valid, as realloc promises
  memcpy(q, p, n < held ? n : held);
  give_back(p, 0);
  return q;
}

int posix_memalign(void** out, size_t align, size_t n) {
  if (align < sizeof(void*) || (align & (align - 1)) != 0) return EINVAL;
  void* p = n >= LEND_MIN_BYTES ? allocate(n, align, 0) : __libc_memalign(align, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

void* aligned_alloc(size_t align, size_t n) {
  if (n < LEND_MIN_BYTES || align == 0 || (align & (align - 1)) != 0)
    return __libc_memalign(align, n);
  return allocate(n, align, 0);
}

void* memalign(size_t align, size_t n) {
  return aligned_alloc(align, n);
}

size_t malloc_usable_size(void* p) {
  static size_t (*real)(void*);
  const size_t lent = give_back(p, 1);
  if (lent) return lent;
  if (real == NULL) real = (size_t(*)(void*))dlsym(RTLD_NEXT, "malloc_usable_size");
  return real ? real(p) : 0;
}
