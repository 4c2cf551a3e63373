// Result<T> and Error are part of the public API (include/cordon/result.h).
#pragma once

#include "cordon/result.h"
