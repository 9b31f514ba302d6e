// Package vap renders ValidatingAdmissionPolicy + ValidatingAdmissionPolicyBinding manifests for the
// stateless checks of a managed kind that CEL in the API server can express, for clusters that want
// them without running Precedent's webhook (`precedent export vap`). The stateful checks, the
// projection warnings and the compilation of `when` conditions need the webhook.
package vap
