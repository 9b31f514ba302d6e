// Package cel compiles and evaluates the `when` conditions of defaults and overrides blocks with
// cel-go and the Kubernetes CEL libraries of k8s.io/apiserver (the functions users know from CRD
// validation rules). `self` is the lower policy in bare form. Compilation checks the result type
// and the estimated cost; evaluation is cost-limited. Compiled programs are cached by expression.
package cel
