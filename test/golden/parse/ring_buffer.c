/*
 * ring_buffer.c - a fixed-size byte ring buffer for the serial driver.
 */

#include "ring_buffer.h"
#include "serial/uart.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RB_MIN_CAPACITY 16
#define RB_IS_POWER_OF_TWO(n) (((n) & ((n) - 1)) == 0)

static const uint32_t RB_MAGIC = 0x52494e47u;

int rb_debug_level = 0;

/** Statistics kept per buffer, read by the diagnostics command. */
struct rb_stats {
    uint64_t written;
    uint64_t read;
    uint32_t overruns;
    uint32_t high_water;
};

/** Why a write stopped short. */
enum rb_status {
    RB_OK = 0,
    RB_FULL,
    RB_CLOSED,
};

/**
 * The buffer. `head` is where the next byte is written, `tail` where the next byte is read;
 * both only grow and are masked on access, so `head - tail` is the fill level.
 */
typedef struct ring_buffer {
    uint32_t magic;
    uint8_t *data;
    size_t capacity;
    size_t head;
    size_t tail;
    int closed;
    struct rb_stats stats;
} ring_buffer_t;

typedef void (*rb_notify_fn)(ring_buffer_t *rb, enum rb_status status);

static rb_notify_fn notify_hook;

static size_t mask(const ring_buffer_t *rb, size_t index) {
    return index & (rb->capacity - 1);
}

size_t rb_used(const ring_buffer_t *rb) {
    return rb->head - rb->tail;
}

size_t rb_free(const ring_buffer_t *rb) {
    return rb->capacity - rb_used(rb);
}

/** Allocates a buffer of `capacity` bytes (a power of two, at least RB_MIN_CAPACITY). */
ring_buffer_t *rb_create(size_t capacity) {
    if (capacity < RB_MIN_CAPACITY || !RB_IS_POWER_OF_TWO(capacity)) {
        errno = EINVAL;
        return NULL;
    }
    ring_buffer_t *rb = calloc(1, sizeof *rb);
    if (rb == NULL) {
        return NULL;
    }
    rb->data = malloc(capacity);
    if (rb->data == NULL) {
        free(rb);
        return NULL;
    }
    rb->magic = RB_MAGIC;
    rb->capacity = capacity;
    return rb;
}

void rb_destroy(ring_buffer_t *rb) {
    if (rb != NULL) {
        free(rb->data);
        free(rb);
    }
}

/*
 * Copies up to `len` bytes from `src` into the buffer, in at most two memcpy calls (before and
 * after the wrap point). With `overwrite`, old bytes are dropped to make room and counted as
 * overruns; without it the write stops when the buffer is full. Returns the bytes written.
 */
size_t rb_write(ring_buffer_t *rb, const uint8_t *src, size_t len, int overwrite) {
    enum rb_status status = RB_OK;
    size_t written = 0;

    if (rb == NULL || rb->magic != RB_MAGIC) {
        errno = EINVAL;
        return 0;
    }
    if (rb->closed) {
        status = RB_CLOSED;
        if (notify_hook != NULL) {
            notify_hook(rb, status);
        }
        return 0;
    }
    if (len == 0) {
        return 0;
    }
    if (src == NULL) {
        /* a NULL source with a length is a caller bug; refuse it before touching the buffer */
        uart_printf("rb %p: write of %zu bytes from NULL\n", (void *)rb, len);
        errno = EFAULT;
        return 0;
    }

    if (len > rb_free(rb)) {
        if (overwrite) {
            size_t drop = len - rb_free(rb);
            if (drop > rb_used(rb)) {
                /* more than the whole buffer: keep only the newest bytes of src */
                src += len - rb->capacity;
                len = rb->capacity;
                drop = rb_used(rb);
            }
            rb->tail += drop;
            rb->stats.overruns += (uint32_t)drop;
            if (rb_debug_level > 1) {
                uart_printf("rb %p: dropped %zu bytes\n", (void *)rb, drop);
            }
        } else {
            len = rb_free(rb);
            status = RB_FULL;
        }
    }

    if (rb_debug_level > 3) {
        /* dump the state before copying: head, tail and the bytes around the wrap point */
        size_t head_at = mask(rb, rb->head);
        size_t tail_at = mask(rb, rb->tail);
        uart_printf("rb %p: head %zu (%zu), tail %zu (%zu), used %zu, free %zu\n", (void *)rb, rb->head,
                    head_at, rb->tail, tail_at, rb_used(rb), rb_free(rb));
        for (size_t i = 0; i < 8 && i < rb_used(rb); i++) {
            uart_printf(" %02x", rb->data[mask(rb, rb->tail + i)]);
        }
        uart_printf("\n");
        if (head_at < tail_at) {
            uart_printf("rb %p: wrapped, %zu bytes before the end\n", (void *)rb, rb->capacity - tail_at);
        }
    }

    while (written < len) {
        size_t at = mask(rb, rb->head);
        size_t chunk = rb->capacity - at;
        if (chunk > len - written) {
            chunk = len - written;
        }
        memcpy(rb->data + at, src + written, chunk);
        rb->head += chunk;
        written += chunk;
        if (rb_debug_level > 2) {
            uart_printf("rb %p: copied %zu bytes at %zu\n", (void *)rb, chunk, at);
        }
    }

    if (written != len) {
        /* a short copy means the arithmetic above is wrong: fail loudly in debug builds */
        uart_printf("rb %p: short write, %zu of %zu bytes\n", (void *)rb, written, len);
        if (rb_debug_level > 0) {
            abort();
        }
    }

    rb->stats.written += written;
    if (rb_used(rb) > rb->stats.high_water) {
        rb->stats.high_water = (uint32_t)rb_used(rb);
        if (rb->stats.high_water == rb->capacity && rb_debug_level > 0) {
            uart_printf("rb %p: reached capacity (%zu bytes)\n", (void *)rb, rb->capacity);
        }
    }
    if (status != RB_OK && notify_hook != NULL) {
        notify_hook(rb, status);
    }
    switch (status) {
    case RB_FULL:
        errno = ENOSPC;
        break;
    case RB_CLOSED:
        errno = EPIPE;
        break;
    default:
        break;
    }
    return written;
}

size_t rb_read(ring_buffer_t *rb, uint8_t *dst, size_t len) {
    size_t n = 0;
    while (n < len && rb->tail != rb->head) {
        dst[n++] = rb->data[mask(rb, rb->tail++)];
    }
    rb->stats.read += n;
    return n;
}

void rb_close(ring_buffer_t *rb) {
    rb->closed = 1;
}

void rb_set_notify(rb_notify_fn fn) {
    notify_hook = fn;
}
