// Tools module that pins kgateway, whose CRDs and translator goldens tests read from the module cache.
// Separate from the main module: Precedent reads kgateway's kinds unstructured and does not link them.
module github.com/precedent-dev/precedent/hack/tools/kgateway

go 1.26.7
require github.com/kgateway-dev/kgateway/v2 v2.2.0
