// libjpeg-turbo, for decoding uploaded drawings into thumbnails and encoding the thumbnails.
//
// libjpeg reports a fatal error by calling error_exit, whose default prints and calls exit():
// one bad upload would end the service. Each function below arms a setjmp before it calls
// into the library, and the error manager longjmps back to it with the library's message.
// Swift cannot call setjmp, so the jumps stay in C, never across a Swift frame.
#ifndef GRIOT_CJPEG_SHIM_H
#define GRIOT_CJPEG_SHIM_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

struct griot_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static inline void griot_jpeg_error_exit(j_common_ptr info) {
    struct griot_jpeg_error *error = (struct griot_jpeg_error *)info->err;
    (*info->err->format_message)(info, error->message);
    longjmp(error->jump, 1);
}

// Warnings (corrupt data the decoder works around) are not printed to the service's stderr.
static inline void griot_jpeg_output_message(j_common_ptr info) { (void)info; }

static inline void griot_jpeg_install_errors(struct griot_jpeg_error *error) {
    jpeg_std_error(&error->manager);
    error->manager.error_exit = griot_jpeg_error_exit;
    error->manager.output_message = griot_jpeg_output_message;
    error->message[0] = 0;
}

/// A decoder that hands out one RGB row at a time, so a large drawing is never held whole.
typedef struct griot_jpeg_reader {
    struct jpeg_decompress_struct info;
    struct griot_jpeg_error error;
    int created;
    int cmyk;               // Adobe CMYK/YCCK: read as CMYK, turned into RGB per row
    unsigned char *scratch; // one CMYK row
} griot_jpeg_reader;

static inline void griot_jpeg_reader_close(griot_jpeg_reader *reader) {
    if (!reader) return;
    if (reader->created) jpeg_destroy_decompress(&reader->info);
    free(reader->scratch);
    free(reader);
}

/// Opens `data` and starts decompression at the coarsest 1/1, 1/2, 1/4 or 1/8 scale whose longer
/// side still reaches `target_side` (0: full size). Returns NULL with `message` filled on failure.
static inline griot_jpeg_reader *griot_jpeg_reader_open(const unsigned char *data, unsigned long size, unsigned target_side,
                                                 unsigned long max_pixels, char *message, size_t message_size) {
    griot_jpeg_reader *reader = (griot_jpeg_reader *)calloc(1, sizeof(griot_jpeg_reader));
    if (!reader) { snprintf(message, message_size, "out of memory"); return NULL; }
    reader->info.err = &reader->error.manager;
    griot_jpeg_install_errors(&reader->error);
    if (setjmp(reader->error.jump)) {
        snprintf(message, message_size, "%s", reader->error.message);
        griot_jpeg_reader_close(reader);
        return NULL;
    }
    jpeg_create_decompress(&reader->info);
    reader->created = 1;
    jpeg_mem_src(&reader->info, data, size);
    jpeg_read_header(&reader->info, TRUE);
    unsigned long width = reader->info.image_width, height = reader->info.image_height;
    if (width == 0 || height == 0 || width * height > max_pixels) {
        snprintf(message, message_size, "image of %lu x %lu pixels is outside the limit", width, height);
        griot_jpeg_reader_close(reader);
        return NULL;
    }
    unsigned long longer = width > height ? width : height;
    unsigned denominator = 1;
    if (target_side > 0) {
        while (denominator < 8 && (longer + denominator * 2 - 1) / (denominator * 2) >= target_side) denominator *= 2;
    }
    reader->info.scale_num = 1;
    reader->info.scale_denom = denominator;
    reader->info.dct_method = JDCT_ISLOW;
    if (reader->info.jpeg_color_space == JCS_CMYK || reader->info.jpeg_color_space == JCS_YCCK) {
        reader->info.out_color_space = JCS_CMYK;
        reader->cmyk = 1;
    } else {
        reader->info.out_color_space = JCS_RGB;
    }
    jpeg_start_decompress(&reader->info);
    if (reader->cmyk) {
        reader->scratch = (unsigned char *)malloc((size_t)reader->info.output_width * 4);
        if (!reader->scratch) {
            snprintf(message, message_size, "out of memory");
            griot_jpeg_reader_close(reader);
            return NULL;
        }
    }
    return reader;
}

static inline unsigned griot_jpeg_reader_width(const griot_jpeg_reader *reader) { return reader->info.output_width; }
static inline unsigned griot_jpeg_reader_height(const griot_jpeg_reader *reader) { return reader->info.output_height; }

/// Reads the next row as RGB into `row` (output_width * 3 bytes). Returns 0, or -1 with `message` filled.
static inline int griot_jpeg_reader_read_row(griot_jpeg_reader *reader, unsigned char *row, char *message, size_t message_size) {
    if (setjmp(reader->error.jump)) {
        snprintf(message, message_size, "%s", reader->error.message);
        return -1;
    }
    if (reader->info.output_scanline >= reader->info.output_height) {
        snprintf(message, message_size, "read past the last row");
        return -1;
    }
    JSAMPROW target = reader->cmyk ? reader->scratch : row;
    while (jpeg_read_scanlines(&reader->info, &target, 1) != 1) {
        // A memory source never suspends; zero rows means the data ended (the library pads with grey).
        snprintf(message, message_size, "the data ended before the last row");
        return -1;
    }
    if (reader->cmyk) {
        // Adobe writes CMYK inverted (0 = full ink), so each channel times K is already the RGB value.
        unsigned width = reader->info.output_width;
        for (unsigned x = 0; x < width; x++) {
            unsigned k = reader->scratch[x * 4 + 3];
            row[x * 3 + 0] = (unsigned char)((reader->scratch[x * 4 + 0] * k + 127) / 255);
            row[x * 3 + 1] = (unsigned char)((reader->scratch[x * 4 + 1] * k + 127) / 255);
            row[x * 3 + 2] = (unsigned char)((reader->scratch[x * 4 + 2] * k + 127) / 255);
        }
    }
    return 0;
}

/// A destination that grows a malloc'd buffer this shim owns, so a failed encode frees it.
struct griot_jpeg_destination {
    struct jpeg_destination_mgr manager;
    unsigned char *buffer;
    size_t capacity;
};

static inline void griot_jpeg_destination_init(j_compress_ptr info) {
    struct griot_jpeg_destination *destination = (struct griot_jpeg_destination *)info->dest;
    destination->manager.next_output_byte = destination->buffer;
    destination->manager.free_in_buffer = destination->capacity;
}

static inline boolean griot_jpeg_destination_grow(j_compress_ptr info) {
    struct griot_jpeg_destination *destination = (struct griot_jpeg_destination *)info->dest;
    // Called when the buffer is full, whatever free_in_buffer says.
    size_t used = destination->capacity;
    size_t capacity = destination->capacity * 2;
    unsigned char *grown = (unsigned char *)realloc(destination->buffer, capacity);
    if (!grown) ERREXIT1(info, JERR_OUT_OF_MEMORY, 10);
    destination->buffer = grown;
    destination->capacity = capacity;
    destination->manager.next_output_byte = grown + used;
    destination->manager.free_in_buffer = capacity - used;
    return TRUE;
}

static inline void griot_jpeg_destination_term(j_compress_ptr info) { (void)info; }

/// Encodes packed RGB rows as a JPEG, progressive if asked, with a restart marker every
/// `restart_rows` MCU rows if not 0. On success returns 0 and a malloc'd buffer in `*output`
/// that the caller frees with free(); on failure returns -1 with `message` filled.
static inline int griot_jpeg_encode_rgb(const unsigned char *rgb, unsigned width, unsigned height, int quality,
                                        int progressive, unsigned restart_rows,
                                        unsigned char **output, unsigned long *output_size, char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    struct griot_jpeg_error error;
    struct griot_jpeg_destination destination;
    *output = NULL;
    *output_size = 0;
    destination.capacity = 16384 + (size_t)width * height / 4;
    destination.buffer = (unsigned char *)malloc(destination.capacity);
    if (!destination.buffer) { snprintf(message, message_size, "out of memory"); return -1; }
    destination.manager.init_destination = griot_jpeg_destination_init;
    destination.manager.empty_output_buffer = griot_jpeg_destination_grow;
    destination.manager.term_destination = griot_jpeg_destination_term;
    info.err = &error.manager;
    griot_jpeg_install_errors(&error);
    if (setjmp(error.jump)) {
        snprintf(message, message_size, "%s", error.message);
        jpeg_destroy_compress(&info);
        free(destination.buffer);
        return -1;
    }
    jpeg_create_compress(&info);
    info.dest = &destination.manager;
    info.image_width = width;
    info.image_height = height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    info.optimize_coding = TRUE;
    info.restart_in_rows = (int)restart_rows;
    if (progressive) jpeg_simple_progression(&info);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * width * 3);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    *output_size = (unsigned long)(destination.capacity - destination.manager.free_in_buffer);
    *output = destination.buffer;
    jpeg_destroy_compress(&info);
    return 0;
}

#endif
