package com.example.shop.orders;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import static java.util.Objects.requireNonNull;
import javax.sql.*;

/**
 * Loads and stores orders in the relational database.
 *
 * <p>Every method opens its own connection from the pool; callers that need a transaction
 * across calls use {@link #inTransaction}.
 */
public class OrderRepository {
    public static final int DEFAULT_PAGE_SIZE = 50;
    private static final String SELECT_ORDER = "SELECT id, customer, status, total_cents, created_at FROM orders";

    private final DataSource dataSource;
    private int queries;

    /** A unit of work run inside one transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** The states an order moves through. */
    public enum Status {
        OPEN, PAID, SHIPPED, CANCELLED;

        boolean isFinal() {
            return this == SHIPPED || this == CANCELLED;
        }
    }

    /** One row of the orders table. */
    public record Order(long id, String customer, Status status, long totalCents, Instant createdAt) {}

    public OrderRepository(DataSource dataSource) {
        this.dataSource = requireNonNull(dataSource, "dataSource");
    }

    public Optional<Order> findById(long id) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement st = c.prepareStatement(SELECT_ORDER + " WHERE id = ?")) {
            st.setLong(1, id);
            queries++;
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Searches orders by customer, status and creation date, newest first.
     *
     * @param customer a customer id, or null for every customer
     * @param status a status, or null for every status
     * @param since only orders created at or after this instant; null for no bound
     * @param page the 1-based page
     * @param size the page size, at most 500
     * @return the orders of the page, possibly empty
     */
    public List<Order> search(String customer, Status status, Instant since, int page, int size) throws SQLException {
        if (page < 1) {
            throw new IllegalArgumentException("page must be at least 1, got " + page);
        }
        if (size < 1 || size > 500) {
            throw new IllegalArgumentException("size must be between 1 and 500, got " + size);
        }
        StringBuilder sql = new StringBuilder(SELECT_ORDER);
        List<Object> params = new ArrayList<>();
        String glue = " WHERE ";
        if (customer != null && !customer.isBlank()) {
            sql.append(glue).append("customer = ?");
            params.add(customer.trim());
            glue = " AND ";
        }
        if (status != null) {
            sql.append(glue).append("status = ?");
            params.add(status.name());
            glue = " AND ";
        }
        if (since != null) {
            if (since.isAfter(Instant.now())) {
                return List.of();
            }
            sql.append(glue).append("created_at >= ?");
            params.add(java.sql.Timestamp.from(since));
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?");
        params.add(size);
        params.add((page - 1) * size);

        List<Order> out = new ArrayList<>(size);
        try (Connection c = dataSource.getConnection();
             PreparedStatement st = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < params.size(); i++) {
                Object p = params.get(i);
                if (p instanceof String s) {
                    st.setString(i + 1, s);
                } else if (p instanceof Integer n) {
                    st.setInt(i + 1, n);
                } else if (p instanceof java.sql.Timestamp t) {
                    st.setTimestamp(i + 1, t);
                } else {
                    throw new IllegalStateException("unexpected parameter type " + p.getClass());
                }
            }
            queries++;
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    Order order = map(rs);
                    if (order.status() == Status.CANCELLED && status == null) {
                        // cancelled orders are only listed when asked for
                        continue;
                    }
                    out.add(order);
                }
            }
        } catch (SQLException e) {
            throw new SQLException("search failed for customer " + customer + ", status " + status, e);
        }
        if (out.size() > size) {
            throw new IllegalStateException("the database returned more rows than the limit: " + out.size());
        }
        long cancelled = out.stream().filter(o -> o.status() == Status.CANCELLED).count();
        if (cancelled > 0 && status != Status.CANCELLED) {
            throw new IllegalStateException(cancelled + " cancelled orders leaked into the page");
        }
        for (int i = 1; i < out.size(); i++) {
            Order before = out.get(i - 1);
            Order after = out.get(i);
            if (before.createdAt().isBefore(after.createdAt())) {
                throw new IllegalStateException("orders out of order at " + after.id() + ": check the index on created_at");
            }
        }
        return out;
    }

    public <T> T inTransaction(Work<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    public int queryCount() {
        return queries;
    }

    private static Order map(ResultSet rs) throws SQLException {
        return new Order(
            rs.getLong("id"),
            rs.getString("customer"),
            Status.valueOf(rs.getString("status")),
            rs.getLong("total_cents"),
            rs.getTimestamp("created_at").toInstant());
    }

    static String describe(Order order) {
        return order.id() + " (" + order.status() + ")";
    }
}
