// libpng, for decoding uploaded drawings into thumbnails.
//
// libpng reports a fatal error by longjmp to the setjmp armed on png_jmpbuf (with no setjmp
// armed it aborts the process). Each function below arms it before it calls into the library.
// Swift cannot call setjmp, so the jumps stay in C, never across a Swift frame.
#ifndef GRIOT_CPNG_SHIM_H
#define GRIOT_CPNG_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>

/// A decoder that hands out one row at a time as RGB composited on white (palette, grey, 16-bit,
/// low bit depths and transparency all end up there), so a large drawing is never held whole;
/// an interlaced image is read whole once, since its rows arrive in seven passes.
typedef struct griot_png_reader {
    png_structp png;
    png_infop info;
    const unsigned char *data;
    size_t size;
    size_t offset;
    unsigned width;
    unsigned height;
    unsigned next_row;
    unsigned char *rgba_row;     // one RGBA row (non-interlaced)
    unsigned char **image_rows;  // the whole RGBA image (interlaced)
    unsigned char *image;
    char message[256];
} griot_png_reader;

static inline void griot_png_error(png_structp png, png_const_charp text) {
    griot_png_reader *reader = (griot_png_reader *)png_get_error_ptr(png);
    snprintf(reader->message, sizeof reader->message, "%s", text);
    png_longjmp(png, 1);
}

static inline void griot_png_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static inline void griot_png_read_data(png_structp png, png_bytep target, size_t length) {
    griot_png_reader *reader = (griot_png_reader *)png_get_io_ptr(png);
    if (length > reader->size - reader->offset) png_error(png, "the data ended before the image did");
    memcpy(target, reader->data + reader->offset, length);
    reader->offset += length;
}

static inline void griot_png_reader_close(griot_png_reader *reader) {
    if (!reader) return;
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    free(reader->rgba_row);
    free(reader->image_rows);
    free(reader->image);
    free(reader);
}

/// Opens `data`, refusing images over `max_pixels`. Returns NULL with `message` filled on failure.
static inline griot_png_reader *griot_png_reader_open(const unsigned char *data, size_t size, unsigned long max_pixels,
                                               char *message, size_t message_size) {
    griot_png_reader *reader = (griot_png_reader *)calloc(1, sizeof(griot_png_reader));
    if (!reader) { snprintf(message, message_size, "out of memory"); return NULL; }
    reader->data = data;
    reader->size = size;
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, griot_png_error, griot_png_warning);
    if (!reader->png) { snprintf(message, message_size, "libpng could not start"); griot_png_reader_close(reader); return NULL; }
    reader->info = png_create_info_struct(reader->png);
    if (!reader->info) { snprintf(message, message_size, "libpng could not start"); griot_png_reader_close(reader); return NULL; }
    if (setjmp(png_jmpbuf(reader->png))) {
        snprintf(message, message_size, "%s", reader->message);
        griot_png_reader_close(reader);
        return NULL;
    }
    png_set_read_fn(reader->png, reader, griot_png_read_data);
    png_read_info(reader->png, reader->info);
    png_uint_32 width = png_get_image_width(reader->png, reader->info);
    png_uint_32 height = png_get_image_height(reader->png, reader->info);
    if (width == 0 || height == 0 || (unsigned long)width * height > max_pixels) {
        snprintf(message, message_size, "image of %u x %u pixels is outside the limit", (unsigned)width, (unsigned)height);
        griot_png_reader_close(reader);
        return NULL;
    }
    int color_type = png_get_color_type(reader->png, reader->info);
    int bit_depth = png_get_bit_depth(reader->png, reader->info);
    png_set_expand(reader->png);
    if (bit_depth == 16) png_set_scale_16(reader->png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(reader->png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(reader->png, reader->info, PNG_INFO_tRNS))
        png_set_filler(reader->png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(reader->png);
    png_read_update_info(reader->png, reader->info);
    if (png_get_rowbytes(reader->png, reader->info) != (size_t)width * 4) {
        snprintf(message, message_size, "unexpected row layout after conversion to RGBA");
        griot_png_reader_close(reader);
        return NULL;
    }
    reader->width = width;
    reader->height = height;
    if (passes > 1) {
        reader->image = (unsigned char *)malloc((size_t)width * height * 4);
        reader->image_rows = (unsigned char **)malloc(sizeof(unsigned char *) * height);
        if (!reader->image || !reader->image_rows) {
            snprintf(message, message_size, "out of memory");
            griot_png_reader_close(reader);
            return NULL;
        }
        for (png_uint_32 y = 0; y < height; y++) reader->image_rows[y] = reader->image + (size_t)y * width * 4;
        png_read_image(reader->png, reader->image_rows);
    } else {
        reader->rgba_row = (unsigned char *)malloc((size_t)width * 4);
        if (!reader->rgba_row) {
            snprintf(message, message_size, "out of memory");
            griot_png_reader_close(reader);
            return NULL;
        }
    }
    return reader;
}

static inline unsigned griot_png_reader_width(const griot_png_reader *reader) { return reader->width; }
static inline unsigned griot_png_reader_height(const griot_png_reader *reader) { return reader->height; }

/// Reads the next row as RGB on white into `row` (width * 3 bytes). Returns 0, or -1 with `message` filled.
static inline int griot_png_reader_read_row(griot_png_reader *reader, unsigned char *row, char *message, size_t message_size) {
    if (reader->next_row >= reader->height) {
        snprintf(message, message_size, "read past the last row");
        return -1;
    }
    const unsigned char *rgba;
    if (reader->image_rows) {
        rgba = reader->image_rows[reader->next_row];
    } else {
        if (setjmp(png_jmpbuf(reader->png))) {
            snprintf(message, message_size, "%s", reader->message);
            return -1;
        }
        png_read_row(reader->png, reader->rgba_row, NULL);
        rgba = reader->rgba_row;
    }
    reader->next_row++;
    for (unsigned x = 0; x < reader->width; x++) {
        unsigned alpha = rgba[x * 4 + 3], white = 255 * (255 - alpha);
        row[x * 3 + 0] = (unsigned char)((rgba[x * 4 + 0] * alpha + white + 127) / 255);
        row[x * 3 + 1] = (unsigned char)((rgba[x * 4 + 1] * alpha + white + 127) / 255);
        row[x * 3 + 2] = (unsigned char)((rgba[x * 4 + 2] * alpha + white + 127) / 255);
    }
    return 0;
}

#endif
