/*!
 * \file mxffi/mxffi.h
 * \brief Everything a C++ user of the core runtime needs, in one include.
 */
#ifndef MXFFI_MXFFI_H_
#define MXFFI_MXFFI_H_

#include <mxffi/any.h>
#include <mxffi/c_api.h>
#include <mxffi/container/array.h>
#include <mxffi/container/complex.h>
#include <mxffi/container/map.h>
#include <mxffi/container/shape.h>
#include <mxffi/container/string.h>
#include <mxffi/container/tuple.h>
#include <mxffi/env.h>
#include <mxffi/error.h>
#include <mxffi/function.h>
#include <mxffi/object.h>
#include <mxffi/optional.h>
#include <mxffi/reflection.h>
#include <mxffi/registry.h>

#endif  // MXFFI_MXFFI_H_
