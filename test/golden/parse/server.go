// Package httpapi serves the orders API over HTTP.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	store "example.com/shop/internal/store"
)

// DefaultTimeout bounds every request handled by the server.
const DefaultTimeout = 15 * time.Second

const (
	maxPageSize = 200
	// headerRequestID carries the caller's request id.
	headerRequestID = "X-Request-Id"
)

var errNotFound = errors.New("not found")

// Handler is anything that serves one route.
type Handler interface {
	ServeHTTP(w http.ResponseWriter, r *http.Request)
	Route() string
}

// Server routes requests to the order store.
//
// A Server is safe for concurrent use once Start has returned.
type Server struct {
	db      *store.DB
	mux     *http.ServeMux
	timeout time.Duration
	started bool
}

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// NewServer returns a server over db with the default timeout.
func NewServer(db *store.DB) *Server {
	return &Server{db: db, mux: http.NewServeMux(), timeout: DefaultTimeout}
}

// Start registers the routes; it is called once.
func (s *Server) Start() error {
	if s.started {
		return errors.New("already started")
	}
	s.mux.HandleFunc("/orders", s.handleOrders)
	s.started = true
	return nil
}

// handleOrders lists, creates and cancels orders.
func (s *Server) handleOrders(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	requestID := r.Header.Get(headerRequestID)
	if requestID == "" {
		requestID = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	w.Header().Set(headerRequestID, requestID)

	switch r.Method {
	case http.MethodGet:
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || page < 1 {
			page = 1
		}
		size, err := strconv.Atoi(r.URL.Query().Get("size"))
		if err != nil || size < 1 {
			size = 50
		}
		if size > maxPageSize {
			size = maxPageSize
		}
		status := strings.ToLower(r.URL.Query().Get("status"))
		orders, err := s.db.ListOrders(ctx, store.ListOptions{Page: page, Size: size, Status: status})
		if err != nil {
			writeError(w, http.StatusInternalServerError, fmt.Errorf("list orders: %w", err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"page": page, "size": size, "orders": orders})

	case http.MethodPost:
		var input store.NewOrder
		decoder := json.NewDecoder(r.Body)
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(&input); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("decode order: %w", err))
			return
		}
		if strings.TrimSpace(input.Customer) == "" {
			writeError(w, http.StatusUnprocessableEntity, errors.New("customer is required"))
			return
		}
		if len(input.Lines) == 0 {
			writeError(w, http.StatusUnprocessableEntity, errors.New("an order needs at least one line"))
			return
		}
		for i, line := range input.Lines {
			if line.Quantity <= 0 {
				writeError(w, http.StatusUnprocessableEntity, fmt.Errorf("line %d: quantity must be positive", i+1))
				return
			}
			if line.SKU == "" {
				writeError(w, http.StatusUnprocessableEntity, fmt.Errorf("line %d: sku is required", i+1))
				return
			}
		}
		order, err := s.db.CreateOrder(ctx, input)
		if err != nil {
			writeError(w, http.StatusInternalServerError, fmt.Errorf("create order: %w", err))
			return
		}
		w.Header().Set("Location", "/orders/"+order.ID)
		writeJSON(w, http.StatusCreated, order)

	case http.MethodDelete:
		id := strings.TrimPrefix(r.URL.Path, "/orders/")
		if id == "" || strings.Contains(id, "/") {
			writeError(w, http.StatusBadRequest, errors.New("an order id is required"))
			return
		}
		err := s.db.CancelOrder(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			writeError(w, http.StatusNotFound, errNotFound)
		case errors.Is(err, store.ErrShipped):
			writeError(w, http.StatusConflict, fmt.Errorf("order %s has shipped", id))
		case err != nil:
			writeError(w, http.StatusInternalServerError, fmt.Errorf("cancel order: %w", err))
		default:
			w.WriteHeader(http.StatusNoContent)
		}

	case http.MethodPatch:
		id := strings.TrimPrefix(r.URL.Path, "/orders/")
		var patch struct {
			Note     *string `json:"note"`
			Priority *int    `json:"priority"`
		}
		if err := json.NewDecoder(r.Body).Decode(&patch); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("decode patch: %w", err))
			return
		}
		if patch.Priority != nil && (*patch.Priority < 0 || *patch.Priority > 9) {
			writeError(w, http.StatusUnprocessableEntity, errors.New("priority must be between 0 and 9"))
			return
		}
		order, err := s.db.UpdateOrder(ctx, id, patch.Note, patch.Priority)
		if err != nil {
			writeError(w, http.StatusInternalServerError, fmt.Errorf("update order %s: %w", id, err))
			return
		}
		writeJSON(w, http.StatusOK, order)

	default:
		w.Header().Set("Allow", "GET, POST, PATCH, DELETE")
		writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("method %s not allowed", r.Method))
	}
}

// Close stops accepting requests.
func (s *Server) Close() error {
	s.started = false
	return nil
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// Chain applies middlewares in order.
func Chain(h http.Handler, middlewares ...Middleware) http.Handler {
	for i := len(middlewares) - 1; i >= 0; i-- {
		h = middlewares[i](h)
	}
	return h
}

// WithTimeout is a middleware bounding each request by d.
func WithTimeout(d time.Duration) Middleware {
	return func(next http.Handler) http.Handler {
		return http.TimeoutHandler(next, d, "timeout")
	}
}
