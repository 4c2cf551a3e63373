// Result<T> and Error are part of the public API (include/cordon/result.h); an Error's kinds
// are libcordon's own (core/error_code.h).
#pragma once

#include "cordon/result.h"
#include "core/error_code.h"
