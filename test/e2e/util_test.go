package e2e

import "sigs.k8s.io/controller-runtime/pkg/client"

func keyOf(o client.Object) client.ObjectKey { return client.ObjectKeyFromObject(o) }
