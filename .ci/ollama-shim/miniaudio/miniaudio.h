/*
 * Stand-in for miniaudio.h, written for pi's CI (not the miniaudio project).
 *
 * Why: Go module zips drop vendor/ folders, so building github.com/ollama/ollama
 * from the module proxy lacks llama.cpp's vendored miniaudio header, and Debian
 * bookworm has no package for it. mtmd-helper.cpp only uses miniaudio to decode
 * audio input for multimodal models, which pi's tests never send. This header
 * declares exactly what mtmd-helper.cpp calls, and every call fails, so audio
 * input is reported as undecodable instead of being silently accepted.
 */
#ifndef PI_MINIAUDIO_STANDIN_H
#define PI_MINIAUDIO_STANDIN_H

#include <stddef.h>
#include <stdint.h>

typedef int ma_result;
typedef uint64_t ma_uint64;
typedef uint32_t ma_uint32;

#define MA_SUCCESS 0
/* miniaudio's own code for "not implemented"; any non-zero value fails. */
#define MA_NOT_IMPLEMENTED -29

typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;

typedef struct {
    ma_format format;
    ma_uint32 channels;
    ma_uint32 sampleRate;
} ma_decoder_config;

typedef struct {
    ma_decoder_config config;
} ma_decoder;

/* static inline: mtmd-helper.cpp defines MINIAUDIO_IMPLEMENTATION and
 * MA_API static, so the definitions must live here and stay file-local. */
static inline ma_decoder_config ma_decoder_config_init(ma_format format, ma_uint32 channels, ma_uint32 sampleRate) {
    ma_decoder_config c;
    c.format = format;
    c.channels = channels;
    c.sampleRate = sampleRate;
    return c;
}

static inline ma_result ma_decoder_init_memory(const void *data, size_t size, const ma_decoder_config *config, ma_decoder *decoder) {
    (void)data; (void)size; (void)config; (void)decoder;
    return MA_NOT_IMPLEMENTED;
}

static inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *decoder, ma_uint64 *length) {
    (void)decoder;
    if (length) *length = 0;
    return MA_NOT_IMPLEMENTED;
}

static inline ma_result ma_decoder_read_pcm_frames(ma_decoder *decoder, void *frames, ma_uint64 count, ma_uint64 *read) {
    (void)decoder; (void)frames; (void)count;
    if (read) *read = 0;
    return MA_NOT_IMPLEMENTED;
}

static inline ma_result ma_decoder_uninit(ma_decoder *decoder) {
    (void)decoder;
    return MA_SUCCESS;
}

#endif /* PI_MINIAUDIO_STANDIN_H */
