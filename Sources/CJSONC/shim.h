// json-c, for reading the chunks of a model's stream (one per token) in the provider's hot path.
#include <json-c/json.h>
