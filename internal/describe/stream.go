package describe

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/watchlist"
)

// errNotStreamed says that the API server did not stream a list: streaming lists are disabled
// (in the API server or, with KUBE_FEATURE_WatchListClient=false, in client-go), the user may
// list but not watch, or the resource is not served. The caller lists in pages instead.
var errNotStreamed = errors.New("the list was not streamed")

// streamList visits every Machine of api that q selects through a streaming list, as
// client-go's informers read since Kubernetes 1.35 (a watch with sendInitialEvents: the API
// server sends the Machines one at a time from its watch cache, then a bookmark marking the
// end): memory stays flat however many Machines there are, and the API server neither reads
// etcd nor pages. fn gets each Machine typed, or with q.Raw unstructured as the server sent it.
//
// It returns how many Machines it visited, and errNotStreamed (wrapping the server's answer)
// when the server refused the stream before sending any Machine; fn's error; or the error that
// ended the stream.
func streamList(ctx context.Context, config genericclioptions.RESTClientGetter, api schema.GroupVersionResource, q Query,
	fn func(runtime.Object) error) (int, error) {
	opts, ok, err := watchlist.PrepareWatchListOptionsFromListOptions(metav1.ListOptions{LabelSelector: q.Selector})
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: %w", errNotStreamed, err)
	case !ok:
		return 0, errNotStreamed
	}
	namespace := q.Namespace
	if q.AllNamespaces {
		namespace = ""
	}
	w, err := startWatch(ctx, config, api, namespace, opts, q.Raw)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errNotStreamed, err)
	}
	defer w.Stop()
	n := 0
	for {
		var ev watch.Event
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case e, open := <-w.ResultChan():
			if !open {
				if n == 0 {
					return 0, fmt.Errorf("%w: the API server ended the stream at once", errNotStreamed)
				}
				return n, fmt.Errorf("the API server ended the list of %s after %d Machines", api.GroupResource(), n)
			}
			ev = e
		}
		switch ev.Type {
		case watch.Added:
			n++
			if err := fn(ev.Object); err != nil {
				return n, err
			}
		case watch.Bookmark:
			if m, err := meta.Accessor(ev.Object); err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				return n, nil
			}
		case watch.Error:
			err := fmt.Errorf("listing %s: %w", api.GroupResource(), apierrors.FromObject(ev.Object))
			if n == 0 {
				return 0, fmt.Errorf("%w: %w", errNotStreamed, err)
			}
			return n, err
		default:
			return n, fmt.Errorf("listing %s: an event %s before the list ended", api.GroupResource(), ev.Type)
		}
	}
}

// startWatch opens the watch of api's Machines in namespace (all when empty) with opts,
// decoding them typed through the CLI's scheme, or unstructured when raw.
func startWatch(ctx context.Context, config genericclioptions.RESTClientGetter, api schema.GroupVersionResource, namespace string,
	opts metav1.ListOptions, raw bool) (watch.Interface, error) {
	restConfig, err := config.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	if raw {
		client, err := dynamic.NewForConfig(restConfig)
		if err != nil {
			return nil, err
		}
		return client.Resource(api).Namespace(namespace).Watch(ctx, opts)
	}
	c := rest.CopyConfig(restConfig)
	gv := api.GroupVersion()
	c.GroupVersion, c.APIPath = &gv, "/apis"
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	client, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, err
	}
	return client.Get().NamespaceIfScoped(namespace, namespace != "").Resource(api.Resource).
		VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
}
