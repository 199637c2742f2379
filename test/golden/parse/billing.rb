# frozen_string_literal: true

require 'bigdecimal'
require 'json'
require_relative 'billing/tax_table'
require_relative "billing/errors"

# Monthly invoicing for subscription customers.
module Billing
  VERSION = '2.3.1'
  GRACE_DAYS = 14

  # One priced line of an invoice.
  LineItem = Struct.new(:description, :quantity, :unit_price, keyword_init: true) do
    def total
      quantity * unit_price
    end
  end

  # Builds, prices and settles invoices.
  #
  # An invoice is built from a customer's active subscriptions and usage records, priced with
  # the tax table of the customer's country, and settled against the payment gateway.
  class Invoicer
    DEFAULT_CURRENCY = 'EUR'

    attr_reader :gateway, :tax_table

    def initialize(gateway:, tax_table: TaxTable.default)
      @gateway = gateway
      @tax_table = tax_table
      @log = []
    end

    def self.for_country(country, gateway:)
      new(gateway: gateway, tax_table: TaxTable.for(country))
    end

    # Builds the invoice of `customer` for the month starting at `period_start`.
    #
    # Prorates subscriptions that started or ended during the month, adds metered usage above
    # the plan's allowance, applies credits oldest first and computes the tax per line.
    def build(customer, period_start)
      period_end = next_month(period_start)
      days_in_period = (period_end - period_start).to_i
      lines = []

      customer.subscriptions.each do |subscription|
        next if subscription.cancelled_before?(period_start)

        starts = [subscription.started_on, period_start].max
        ends = [subscription.ended_on || period_end, period_end].min
        days = (ends - starts).to_i
        next if days <= 0

        price = subscription.plan.monthly_price
        if days < days_in_period
          price = (price * days / days_in_period).round(2)
          description = "#{subscription.plan.name} (#{days} of #{days_in_period} days)"
        else
          description = subscription.plan.name
        end
        lines << LineItem.new(description: description, quantity: 1, unit_price: price)

        allowance = subscription.plan.included_units
        used = customer.usage_between(subscription, starts, ends).sum(&:units)
        if used > allowance
          extra = used - allowance
          unit = subscription.plan.overage_price
          lines << LineItem.new(description: "#{subscription.plan.name} overage", quantity: extra, unit_price: unit)
          @log << "#{customer.id}: #{extra} units over the allowance of #{allowance}"
        end
      end

      if lines.empty? && customer.subscriptions.any?(&:paused?)
        # paused subscriptions still owe the minimum fee of their plan
        customer.subscriptions.select(&:paused?).each do |subscription|
          fee = subscription.plan.minimum_fee
          lines << LineItem.new(description: "#{subscription.plan.name} (paused)", quantity: 1, unit_price: fee)
        end
      end

      subtotal = lines.sum(&:total)
      credits = customer.credits.select { |c| c.remaining.positive? }.sort_by(&:created_at)
      applied = BigDecimal('0')
      credits.each do |credit|
        break if applied >= subtotal

        amount = [credit.remaining, subtotal - applied].min
        credit.consume(amount)
        applied += amount
        lines << LineItem.new(description: "Credit #{credit.reference}", quantity: 1, unit_price: -amount)
      end

      rate = tax_table.rate_for(customer.country, customer.vat_number)
      tax = lines.sum { |line| (line.total * rate).round(2) }
      if customer.vat_number && tax_table.reverse_charge?(customer.country)
        @log << "#{customer.id}: reverse charge, no tax"
        tax = BigDecimal('0')
      end

      currency = customer.currency || DEFAULT_CURRENCY
      if currency != DEFAULT_CURRENCY
        rate = gateway.exchange_rate(DEFAULT_CURRENCY, currency, on: period_start)
        raise Errors::NoExchangeRate, currency if rate.nil?

        lines.each { |line| line.unit_price = (line.unit_price * rate).round(2) }
        tax = (tax * rate).round(2)
      end

      if lines.empty?
        @log << "#{customer.id}: nothing to invoice for #{period_start}"
        return nil
      end
      total = lines.sum(&:total) + tax
      if total.negative?
        # credits exceeded the charges: carry the rest over instead of paying it out
        @log << "#{customer.id}: credit carried over, #{-total} #{currency}"
        total = BigDecimal('0')
      end
      due_on = period_end + GRACE_DAYS
      { customer: customer.id, lines: lines, tax: tax, total: total, currency: currency, due_on: due_on }
    end

    def settle(invoice)
      gateway.charge(invoice[:customer], invoice[:total], currency: invoice[:currency])
    rescue Errors::PaymentDeclined => e
      @log << "#{invoice[:customer]}: declined (#{e.message})"
      false
    end

    def log
      @log.dup
    end

    private

    def next_month(date)
      date >> 1
    end
  end

  class Errors::NoExchangeRate < StandardError; end

  def self.configure
    yield Invoicer
  end
end

def format_money(amount, currency = Billing::Invoicer::DEFAULT_CURRENCY)
  format('%.2f %s', amount, currency)
end

def to_json_invoice(invoice)
  JSON.generate(invoice)
end
